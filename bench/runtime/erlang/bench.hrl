%% bench.hrl -- shared reporting for the Erlang comparison benchmarks (not tests).
%% Prints one line the runner parses: "<name> schedulers=<S>  <N> <unit> in <secs> s".
-define(REPORT(Name, N, Unit, T0),
        begin
            __Secs = (erlang:monotonic_time(nanosecond) - (T0)) / 1.0e9,
            io:format("~-10s schedulers=~w  ~w ~s in ~.3f s  = ~w ~s/s~n",
                      [Name, erlang:system_info(schedulers_online), N, Unit, __Secs,
                       round(N / __Secs), Unit])
        end).
-define(NOW(), erlang:monotonic_time(nanosecond)).
