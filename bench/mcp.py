"""Tool calls per second over MCP streamable HTTP against the same call through REST.

`leadline serve` (REST) and `leadline mcp` (the MCP server alone) run in their own processes on one
embedded stack; the load comes from this process with a fixed concurrency. Each worker holds one MCP
session (the official client) with its own organisation's key, and REST workers use the same keys, so
the per-key rate limit (60/s on Business) does not cap the figures; the rate gate still runs on every
call. Two calls: `get_plan` (GET /v2.0/billing/plan) and `find_contact_by_phone` (POST
/v2.0/contacts/phone), each as a bare JSON-RPC POST of the 2026 per-request protocol from the same aiohttp
client as the REST load (the server's cost), and through the official `mcp` client over that protocol
(`auto`) and over the handshake protocol with a session (`legacy`) (the client's cost included: it runs in
this process).

    .venv/bin/python bench/mcp.py [--seconds 5] [--concurrency 8]

Also printed: each server process's CPU time per call (Linux), which does not depend on the load generator
or anything else running on the machine.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from contextlib import AsyncExitStack

# This file is named mcp.py: run as a script, its folder comes first on sys.path and would shadow the SDK.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]

import aiohttp  # noqa: E402
import httpx2  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from leadline.database import connect_database  # noqa: E402
from leadline.embedded import EmbeddedStack, free_port  # noqa: E402
from leadline.resolvers.auth.admin import create_org  # noqa: E402

sys.path.append(HERE)
from common import start, stop  # noqa: E402

PHONE = "14155552671"
PROTOCOL = "2026-07-28"
CLIENT_META = {"io.modelcontextprotocol/protocolVersion": PROTOCOL,
               "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
               "io.modelcontextprotocol/clientCapabilities": {}}


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (Linux: /proc), None elsewhere."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _run(workers, seconds: float, server_pid: int | None = None) -> tuple[float, float, int, float | None]:
    """(calls per second, p50 ms, failures, the server's CPU ms per call) of `workers` (async callables)
    calling in a loop. The CPU figure does not depend on what else the machine runs."""
    cpu_before = _cpu_seconds(server_pid) if server_pid else None
    latencies: list[float] = []
    failures = 0
    stop_at = time.perf_counter() + seconds

    async def loop(call) -> None:
        nonlocal failures
        while time.perf_counter() < stop_at:
            t0 = time.perf_counter()
            if not await call():
                failures += 1
            latencies.append(time.perf_counter() - t0)

    started = time.perf_counter()
    await asyncio.gather(*(loop(w) for w in workers))
    elapsed = time.perf_counter() - started
    cpu = None
    if cpu_before is not None and (cpu_after := _cpu_seconds(server_pid)) is not None and latencies:
        cpu = (cpu_after - cpu_before) * 1000 / len(latencies)
    return len(latencies) / elapsed, statistics.median(latencies) * 1000, failures, cpu


async def main(seconds: float, concurrency: int) -> None:
    stack = EmbeddedStack.start(None)
    env = {**os.environ, "MONGODB_URL": stack.database.url, "REDIS_URL": stack.redis.url,
           "MONGODB_DATABASE": "bench", "LEADLINE_LOG_LEVEL": "WARNING"}
    procs = []
    try:
        mongo = await connect_database(stack.database.url, "bench")
        keys = [(await create_org(f"Bench {i}", plan="business"))["legacyKey"] for i in range(concurrency)]
        await mongo.close()
        api_port, mcp_port = free_port(), free_port()
        procs.append(start([sys.executable, "-m", "leadline.cli", "serve", "--port", str(api_port)], env, "listening"))
        procs.append(start([sys.executable, "-m", "leadline.cli", "mcp", "--port", str(mcp_port)], env, "listening"))
        api_pid, mcp_pid = procs[0].pid, procs[1].pid
        api, mcp_url = f"http://127.0.0.1:{api_port}", f"http://127.0.0.1:{mcp_port}/mcp"

        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as http:
            for key in keys:  # one contact per organisation, for the lookups
                async with http.post(f"{api}/v2.0/contacts", json={"phone": PHONE, "contactName": "Ann"},
                                     headers={"Authorization": f"Bearer {key}"}) as resp:
                    assert resp.status in (200, 201), await resp.text()

            calls = {"get_plan": ("GET", "/v2.0/billing/plan", None, {}),
                     "find_contact_by_phone": ("POST", "/v2.0/contacts/phone", {"phone": PHONE}, {"phone": PHONE})}
            rows = []
            for tool, (method, path, body, arguments) in calls.items():
                def rest_worker(key: str):
                    async def call() -> bool:
                        async with http.request(method, api + path, json=body,
                                                headers={"Authorization": f"Bearer {key}"}) as resp:
                            await resp.read()
                            return resp.status == 200
                    return call

                workers = [rest_worker(k) for k in keys]
                await _run(workers, 1.0)  # warm up
                rows.append((f"REST {method} {path}", *await _run(workers, seconds, api_pid)))

                def raw_worker(key: str):
                    """The 2026 protocol's tools/call as one JSON-RPC POST from the same HTTP client as REST's:
                    the server's cost without the SDK client's."""
                    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream",
                               "Mcp-Protocol-Version": PROTOCOL, "Mcp-Method": "tools/call", "Mcp-Name": tool}
                    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                            "params": {"name": tool, "arguments": arguments, "_meta": CLIENT_META}}

                    async def call() -> bool:
                        async with http.post(mcp_url, json=body, headers=headers) as resp:
                            reply = await resp.json()
                            return resp.status == 200 and not reply["result"]["isError"]
                    return call

                workers = [raw_worker(k) for k in keys]
                await _run(workers, 1.0)
                rows.append((f"MCP {tool} (JSON-RPC POST, aiohttp client)", *await _run(workers, seconds, mcp_pid)))

                for mode in ("auto", "legacy"):
                    async with AsyncExitStack() as sessions:
                        clients = []
                        for key in keys:
                            client_http = await sessions.enter_async_context(httpx2.AsyncClient(
                                headers={"Authorization": f"Bearer {key}"}, timeout=httpx2.Timeout(30, read=300)))
                            clients.append(await sessions.enter_async_context(
                                Client(streamable_http_client(mcp_url, http_client=client_http), mode=mode)))

                        def mcp_worker(client):
                            async def call() -> bool:
                                result = await client.call_tool(tool, arguments)
                                return not result.is_error
                            return call

                        workers = [mcp_worker(c) for c in clients]
                        await _run(workers, 1.0)
                        label = "mcp client, 2026 protocol" if mode == "auto" else "mcp client, handshake + session"
                        rows.append((f"MCP {tool} ({label})", *await _run(workers, seconds, mcp_pid)))

        print(f"concurrency {concurrency}, {seconds:.0f} s per target")
        print(f"{'target':60} {'calls/s':>8} {'p50 ms':>8} {'failed':>7} {'server CPU ms/call':>19}")
        for name, rps, p50, failed, cpu in rows:
            print(f"{name:60} {rps:8.0f} {p50:8.2f} {failed:7d} {'' if cpu is None else f'{cpu:.2f}':>19}")
        for i in range(0, len(rows), 4):
            print("calls/s vs REST: " + "; ".join(f"{name.split('(')[1].rstrip(')')} {rps / rows[i][1]:.2f}"
                                                  for name, rps, *_ in rows[i + 1:i + 4]) + f"  ({rows[i][0]})")
    finally:
        stop(procs)
        stack.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    asyncio.run(main(args.seconds, args.concurrency))
