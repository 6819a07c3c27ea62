"""Counting: main puts 1,000,000 Inc messages in a counter task's queue, then
asks for the count with a Get carrying a future for the reply."""
import asyncio

N = 1_000_000


class Inc:
    __slots__ = ()


class Get:
    __slots__ = ("reply",)

    def __init__(self, reply):
        self.reply = reply


async def counter(inbox):
    n = 0
    while True:
        msg = await inbox.get()
        if type(msg) is Inc:
            n += 1
        else:
            msg.reply.set_result(n)
            return


async def main():
    inbox = asyncio.Queue()
    task = asyncio.create_task(counter(inbox))
    for _ in range(N):
        inbox.put_nowait(Inc())
    reply = asyncio.get_running_loop().create_future()
    inbox.put_nowait(Get(reply))
    print(f"{await reply} messages counted")
    await task


asyncio.run(main())
