"""Skynet: a 10-ary tree of tasks of depth 4 (11,111 tasks); each of the 10,000
leaves puts its number in its parent's queue, each parent the sum of its
children's. The root's answer is 49995000."""
import asyncio


async def skynet(num, size, parent):
    if size == 1:
        parent.put_nowait(num)
        return
    inbox = asyncio.Queue()
    size //= 10
    children = [asyncio.create_task(skynet(num + i * size, size, inbox)) for i in range(10)]
    total = 0
    for _ in range(10):
        total += await inbox.get()
    parent.put_nowait(total)
    await asyncio.gather(*children)


async def main():
    inbox = asyncio.Queue()
    root = asyncio.create_task(skynet(0, 10_000, inbox))
    print(f"skynet sum {await inbox.get()}")
    await root


asyncio.run(main())
