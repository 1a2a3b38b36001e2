"""What the benchmark scripts share: starting server processes and driving a fixed-concurrency load."""
from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import time

import aiohttp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def start(cmd: list[str], env: dict, ready: str) -> subprocess.Popen:
    """Start a server process from the repository root and wait for `ready` on its stdout."""
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    while True:
        line = proc.stdout.readline()
        if ready in line:
            return proc
        if proc.poll() is not None:
            raise RuntimeError(f"{cmd} exited")


def stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        proc.terminate()
        proc.wait(60)


async def load(make_request, seconds: float | None, concurrency: int, ok=(200,),
               count: int | None = None) -> tuple[int, float, float, int]:
    """(requests, per second, p50 ms, non-ok) over `seconds` (or for `count` requests) with `concurrency`
    workers."""
    latencies: list[float] = []
    errors = 0
    stop_at = time.perf_counter() + seconds if seconds is not None else float("inf")
    left = count if count is not None else -1

    async def worker(session: aiohttp.ClientSession) -> None:
        nonlocal errors, left
        while time.perf_counter() < stop_at and left != 0:
            left -= 1
            t0 = time.perf_counter()
            async with make_request(session) as resp:
                await resp.read()
                if resp.status not in ok:
                    errors += 1
            latencies.append(time.perf_counter() - t0)

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
        started = time.perf_counter()
        await asyncio.gather(*(worker(session) for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
    return len(latencies), len(latencies) / elapsed, statistics.median(latencies) * 1000, errors


async def until_drained(redis, key: str, started: float, timeout: float = 300) -> float:
    """Seconds from `started` until the ingestion stream and its entries due by now are empty."""
    while True:
        pipe = redis.pipeline(transaction=False)
        pipe.xlen(key)
        pipe.zcount(f"{key}:delayed", "-inf", int(time.time() * 1000))
        queued, delayed = await pipe.execute()
        elapsed = time.perf_counter() - started
        if queued + delayed == 0 or elapsed > timeout:
            return elapsed
        await asyncio.sleep(0.1)
