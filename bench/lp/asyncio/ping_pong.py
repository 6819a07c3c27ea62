"""Ping-pong: main sends Ping to a ponger task through its queue and waits for
Pong on its own queue, 200,000 round trips, one message in flight at a time."""
import asyncio

N = 200_000


class Ping:
    __slots__ = ("sender",)

    def __init__(self, sender):
        self.sender = sender


class Pong:
    __slots__ = ()


class Stop:
    __slots__ = ()


async def ponger(inbox):
    count = 0
    while True:
        msg = await inbox.get()
        if type(msg) is Stop:
            return count
        msg.sender.put_nowait(Pong())
        count += 1


async def main():
    me = asyncio.Queue()
    inbox = asyncio.Queue()
    task = asyncio.create_task(ponger(inbox))
    trips = 0
    for _ in range(N):
        inbox.put_nowait(Ping(me))
        await me.get()
        trips += 1
    inbox.put_nowait(Stop())
    await task
    print(f"{trips} round trips")


asyncio.run(main())
