%% spawn.erl -- spawn 100,000 processes that each report back once (as spawn.c).
-module(spawn).
-export([main/0]).
-include("bench.hrl").
-define(N, 100000).

spawn_all(_Main, 0) -> ok;
spawn_all(Main, K) -> spawn(fun() -> Main ! 1 end), spawn_all(Main, K - 1).

collect(0) -> ok;
collect(K) -> receive 1 -> collect(K - 1) end.

main() ->
    Self = self(),
    T0 = ?NOW(),
    spawn_all(Self, ?N),
    collect(?N),
    ?REPORT("spawn", ?N, "actors", T0).
