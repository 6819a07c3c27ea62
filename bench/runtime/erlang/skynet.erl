%% skynet.erl -- 1,000,000 leaf processes in a 10-ary tree sum their numbers (as skynet.c).
-module(skynet).
-export([main/0]).
-include("bench.hrl").

skynet(Parent, Num, 1) -> Parent ! Num;
skynet(Parent, Num, Size) ->
    Self = self(),
    Sub = Size div 10,
    [spawn(fun() -> skynet(Self, Num + I * Sub, Sub) end) || I <- lists:seq(0, 9)],
    Parent ! collect(10, 0).

collect(0, Sum) -> Sum;
collect(K, Sum) -> receive V -> collect(K - 1, Sum + V) end.

main() ->
    Self = self(),
    T0 = ?NOW(),
    spawn(fun() -> skynet(Self, 0, 1000000) end),
    Sum = receive V -> V end,
    ?REPORT("skynet", 1111111, "actors", T0),
    Sum = 499999500000.
