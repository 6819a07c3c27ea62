"""Thread ring: 503 tasks in a ring, each with a queue, pass a token 200,000 hops;
the task holding it when the count runs out reports its number (310)."""
import asyncio

ACTORS = 503
HOPS = 200_000


async def node(i, inbox, nxt, done):
    while True:
        hops = await inbox.get()
        if hops == 0:
            done.set_result(i)
            return
        nxt.put_nowait(hops - 1)


async def main():
    queues = [asyncio.Queue() for _ in range(ACTORS)]
    done = asyncio.get_running_loop().create_future()
    tasks = [asyncio.create_task(node(i + 1, queues[i], queues[(i + 1) % ACTORS], done))
             for i in range(ACTORS)]
    queues[0].put_nowait(HOPS)
    print(f"token stopped at actor {await done}")
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


asyncio.run(main())
