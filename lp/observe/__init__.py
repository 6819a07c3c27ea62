"""`lp run --observe`: a live view of the running program in the browser (docs/observer.md).

The page and its WebSocket are served by the program itself, from stdlib/observer.lp on the
LP HTTP server; what they show comes from `Watch` (what the interpreter tells it about spawns,
ends, deaths and supervisors) and the runtime's snapshots, put together by `view.snapshot`.
"""
