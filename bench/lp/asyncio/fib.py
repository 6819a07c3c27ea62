"""fib 25 by plain recursion (no actors): 242,785 calls; prints 75025.
Run inside asyncio.run like the others, but the work is ordinary Python calls."""
import asyncio


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


async def main():
    print(fib(25))


asyncio.run(main())
