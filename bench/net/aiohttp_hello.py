"""bench/net/aiohttp_hello.py: the same hello-world server in aiohttp, for bench/net/http_bench.py; prints its port."""
import socket
import sys

from aiohttp import web


async def hello(request):
    return web.Response(text="Hello, World!")


def main():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    app = web.Application()
    app.router.add_get("/", hello)
    print(port, flush=True)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


if __name__ == "__main__":
    sys.exit(main())
