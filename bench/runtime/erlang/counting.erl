%% counting.erl -- one process receives and counts 1,000,000 messages (as counting.c).
-module(counting).
-export([main/0]).
-include("bench.hrl").
-define(N, 1000000).

counter(ReportTo, Sum) ->
    receive
        V when V >= 0 -> counter(ReportTo, Sum + V);
        _ -> ReportTo ! {sum, Sum}
    end.

send(_C, 0) -> ok;
send(C, K) -> C ! 1, send(C, K - 1).

main() ->
    Self = self(),
    C = spawn(fun() -> counter(Self, 0) end),
    T0 = ?NOW(),
    send(C, ?N),
    C ! -1,
    Sum = receive {sum, S} -> S end,
    ?REPORT("counting", ?N, "msgs", T0),
    Sum = ?N.
