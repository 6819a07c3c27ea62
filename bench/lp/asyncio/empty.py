"""The asyncio baseline: interpreter start-up and an empty event loop run.
run.py subtracts this script's wall time from every asyncio benchmark's."""
import asyncio


async def main():
    return None


asyncio.run(main())
