"""The two loops every stream-fed worker duty runs: forever in a worker, until empty in tests and bursts.

A duty is a coroutine that takes a batch from its work stream (resolvers/streams.py) and handles it;
`forever` keeps it going through infrastructure failures, `until_empty` stops once the stream holds
nothing queued or waiting for its time.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Awaitable, Callable

from leadline.resolvers.streams import WorkStream

log = logging.getLogger("leadline.worker")


async def forever(what: str, step: Callable[[], Awaitable[object]], stop: asyncio.Event) -> None:
    """Run `step` again and again until `stop` is set; a failure is logged and retried after a pause."""
    while not stop.is_set():
        try:
            await step()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("%s failed; retrying in 1 s", what)
            try:  # a stop meanwhile ends the pause at once
                await asyncio.wait_for(stop.wait(), 1.0)
            except asyncio.TimeoutError:
                pass


async def until_empty(what: str, step: Callable[[], Awaitable[int]], stream: WorkStream, timeout: float) -> int:
    """Run `step` (returning how many it handled) until the stream is empty. Returns the total."""
    done = 0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        taken = await step()
        done += taken
        if taken:
            continue
        if await stream.backlog() == 0:
            return done
        wait = await stream.next_due_in()
        await asyncio.sleep(min(0.05 if wait is None else max(wait, 0.005), 0.5))
    raise TimeoutError(f"{what} still had work after {timeout} s")
