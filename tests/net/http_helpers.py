"""An LP HTTP server in a subprocess for the tests: SERVER is the program (small limits so that
every limit can be reached quickly); it prints its port and a control port, and obeys one line
on the control connection: `stop`, or `stop-after-inflight` (wait until a /slow request is being
handled, then stop), then prints `killed N` and ends."""
from __future__ import annotations

import socket

from tests.net.helpers import LPProcess

SERVER = """
Import module: #HttpServer.
main := Actor self.
limits := HttpLimits default with: {
    maxLine: 200. maxHeaders: 10. maxHeadBytes: 1000. maxBody: 1000.
    idleTimeout: IDLE. headTimeout: 500. bodyTimeout: 500 }.
server := HttpServer START: '127.0.0.1' port: 0 handler: [:req |
    req path = '/boom' ifTrue: [Error raise: 'boom'].
    req path = '/slow' ifTrue: [main ! #inflight. Actor sleep: 300].
    (HttpResponse ok: req method, ' ', req path, ' ', req query, ' ',
        ((req header: 'X-Echo') valueOr: '-'), ' ', req text)
        header: 'X-Version' value: req version] limits: limits.
server port printNl.
control := TCP listenHost: '127.0.0.1' port: 0.
control port printNl.
c := control accept: 120000.
cmd := (c readLine: 120000) valueOr: 'stop'.
cmd = 'stop-after-inflight' ifTrue: [Actor self receive: { #inflight -> [] }].
('killed ', server stop printString) displayNl.
"""


class Server:
    def __init__(self, tmp_path, graceful=False, idle=2000, domains=2, mode="run", args=()):
        src = SERVER.replace("START", "startGracefulHost" if graceful else "startHost").replace("IDLE", str(idle))
        self.lp = LPProcess(src, tmp_path, domains=domains, mode=mode, args=args)
        self.port = int(self.lp.readline())
        self.control = socket.create_connection(("127.0.0.1", int(self.lp.readline())), timeout=30)

    def stop(self, command="stop"):
        self.control.sendall(command.encode() + b"\n")
        return self.lp.finish()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.control.close()
        self.lp.__exit__(*exc)


def raw(port, data: bytes, timeout=10) -> bytes:
    """Send data on a fresh connection and read everything until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        return read_all(s)


def read_all(s) -> bytes:
    out = b""
    while True:
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            return out
        if not chunk:
            return out
        out += chunk


def responses(data: bytes) -> list[tuple[int, dict, bytes]]:
    """Split a byte stream into (status, headers, body) responses (Content-Length framed)."""
    out = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers = {k.lower(): v for k, v in (line.split(": ", 1) for line in lines[1:])}
        n = int(headers["content-length"])
        out.append((status, headers, rest[:n]))
        data = rest[n:]
    return out
