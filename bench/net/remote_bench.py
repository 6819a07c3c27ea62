"""Remote calls/s on one connection: an LP client making sequential JSON-RPC calls to an LP
RemoteServer in another process, and the same client against a Python JSON-RPC server (so the
client's and the server's shares can be told apart).

    python bench/net/remote_bench.py [--calls 2000] [--domains 1]

Each pair runs as `lp run` and as binaries (`lp build`). Prints calls/s and the median per call;
figures only, never a verdict."""
from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CLASSES = """
Import module: #Remote.
Object subclass: #Echo.
Echo >> echo: n = n.
"""

SERVER = CLASSES + """
server := RemoteServer startHost: '127.0.0.1' port: 0.
server register: Echo new for: #Echo id: 1.
server port printNl.
Actor sleep: 600000.
"""

CLIENT = CLASSES + """
Object subclass: #Calls.
Calls class >> on: r times: n into: acc =
    n = 0
        ifTrue: [acc]
        ifFalse: [
            t0 := Actor microsecondClock.
            r echo: n.
            Calls on: r times: n - 1 into: (acc copyWith: Actor microsecondClock - t0)].
r := Remote at: 'http://127.0.0.1:PORT/rpc' for: #Echo id: 1.
Calls on: r times: 50 into: #().
t0 := Actor microsecondClock.
times := Calls on: r times: CALLS into: #().
total := Actor microsecondClock - t0.
((CALLS * 1000000 / total) rounded printString , ' ' , (times asSortedArray at: times size // 2) printString) displayNl.
"""


class _Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def setup(self):
        super().setup()   # http.server writes the head and the body apart: no Nagle stall on them
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self):
        call = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        data = json.dumps({"jsonrpc": "2.0", "id": call["id"], "result": call["params"]["args"][0]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def lp(source, domains, tmp, name, compiled):
    """The program run by `lp run`, or built by `lp build` and run as a binary."""
    f = Path(tmp) / name
    f.write_text(source)
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "lp", "run", "--domains", str(domains), str(f)]
    if compiled:
        subprocess.run([sys.executable, "-m", "lp", "build", str(f), "-o", str(f.with_suffix(""))], check=True,
                       env=env, cwd=ROOT)
        cmd = [str(f.with_suffix("")), "--domains", str(domains)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)


def client(port, args, tmp, compiled):
    src = CLIENT.replace("PORT", str(port)).replace("CALLS", str(args.calls))
    p = lp(src, args.domains, tmp, "client.lp", compiled)
    out, _ = p.communicate(timeout=600)
    m = re.fullmatch(r"(\d+) (\d+)\n", out)
    return int(m.group(1)), int(m.group(2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--domains", type=int, default=1)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for compiled in (False, True):
            mode = "binaries (lp build)" if compiled else "lp run"
            server = lp(SERVER, args.domains, tmp, "server.lp", compiled)
            try:
                port = int(server.stdout.readline())
                rows.append((f"LP client -> LP RemoteServer, {mode}", *client(port, args, tmp, compiled)))
            finally:
                server.kill()
                server.wait()
            py = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
            threading.Thread(target=py.serve_forever, daemon=True).start()
            try:
                rows.append((f"LP client -> Python http.server, {mode}", *client(py.server_address[1], args, tmp,
                                                                                   compiled)))
            finally:
                py.shutdown()
    print(f"{'sequential Remote calls, one connection':58} {'calls/s':>8} {'median':>10}")
    for name, rate, median in rows:
        print(f"{name:58} {rate:>8} {median:>7} us")


if __name__ == "__main__":
    main()
