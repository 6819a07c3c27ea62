%% ring.erl -- thread ring: 503 processes pass a token 2,000,000 hops (as ring.c).
-module(ring).
-export([main/0]).
-include("bench.hrl").
-define(RING, 503).
-define(HOPS, 2000000).

member(I, Main) ->
    receive {next, Next} -> member_loop(I, Main, Next) end.

member_loop(I, Main, Next) ->
    receive
        T when T < 0 -> Next ! -1;
        0 -> Main ! {who, I}, Next ! -1;
        T -> Next ! T - 1, member_loop(I, Main, Next)
    end.

main() ->
    Self = self(),
    Pids = [spawn(fun() -> member(I, Self) end) || I <- lists:seq(0, ?RING - 1)],
    Nexts = tl(Pids) ++ [hd(Pids)],
    [P ! {next, N} || {P, N} <- lists:zip(Pids, Nexts)],
    T0 = ?NOW(),
    hd(Pids) ! ?HOPS,
    Who = receive {who, W} -> W end,
    ?REPORT("ring", ?HOPS, "hops", T0),
    Who = ?HOPS rem ?RING.
