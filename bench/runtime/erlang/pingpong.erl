%% pingpong.erl -- two processes exchange 200,000 round trips (as pingpong.c).
-module(pingpong).
-export([main/0]).
-include("bench.hrl").
-define(N, 200000).

ponger(Peer) ->
    receive
        V when V >= 0 -> Peer ! V + 1, ponger(Peer);
        _ -> ok
    end.

loop(_P, I) when I =:= ?N -> ok;
loop(P, I) ->
    P ! I,
    Want = I + 1,
    receive Want -> loop(P, I + 1) end.

main() ->
    Self = self(),
    P = spawn(fun() -> ponger(Self) end),
    T0 = ?NOW(),
    loop(P, 0),
    ?REPORT("pingpong", ?N, "roundtrips", T0),
    P ! -1.
