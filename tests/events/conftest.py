"""Outgoing events tests: small real receivers on loopback that verify every delivery with the
`standardwebhooks` library, the delivery engine running in the test's process (as a worker runs it), and
GraphQL helpers for endpoints and the delivery log. Attempts time out after 2 s here (15 s in service)."""
from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from aiohttp import web
from standardwebhooks import Webhook

from leadline.jobs.events import deliver_forever


@pytest.fixture
def settings(settings):
    return replace(settings, webhook_timeout_seconds=2.0)


@dataclass
class Receipt:
    headers: dict[str, str]
    body: str
    at: float  # time.time() when it arrived
    status: int | None = None  # what the receiver answered (None: it never answered)

    @property
    def webhook_id(self) -> str:
        return self.headers["webhook-id"]

    def verifies(self, secret: str) -> bool:
        try:
            Webhook(secret).verify(self.body, self.headers)
        except Exception:  # noqa: BLE001 - the library's verification error
            return False
        return True


Handler = Callable[["Receiver", Receipt], Awaitable[web.StreamResponse]]


async def ok(receiver: Receiver, receipt: Receipt) -> web.StreamResponse:
    return web.Response(text="thanks")


@dataclass
class Receiver:
    """POST /hook: records each request, answers with `handler` (200 by default)."""

    handler: Handler = ok
    received: list[Receipt] = field(default_factory=list)
    in_flight: int = 0
    most_in_flight: int = 0
    server: Any = None

    @property
    def url(self) -> str:
        return str(self.server.make_url("/hook"))

    async def hook(self, request: web.Request) -> web.StreamResponse:
        receipt = Receipt({k.lower(): v for k, v in request.headers.items()}, (await request.read()).decode(),
                          time.time())
        self.received.append(receipt)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            response = await self.handler(self, receipt)
        finally:
            self.in_flight -= 1
        receipt.status = response.status
        return response

    async def wait_for(self, count: int, timeout: float = 20.0) -> list[Receipt]:
        deadline = time.monotonic() + timeout
        while len(self.received) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(self.received)} of {count} deliveries after {timeout} s")
            await asyncio.sleep(0.02)
        return self.received

    def ids(self) -> list[str]:
        return [r.webhook_id for r in self.received]


@pytest.fixture
def receiver_factory(aiohttp_server):
    async def make(handler: Handler = ok) -> Receiver:
        receiver = Receiver(handler)
        app = web.Application()
        app.router.add_post("/hook", receiver.hook)
        receiver.server = await aiohttp_server(app, host="127.0.0.1", port=0)
        return receiver

    return make


@pytest.fixture
async def receiver(receiver_factory) -> Receiver:
    return await receiver_factory()


@pytest.fixture
async def engine(services):
    """The delivery engine a worker runs, in this process (it shares the app's services)."""
    stop = asyncio.Event()
    task = asyncio.create_task(deliver_forever(services, stop))
    yield task
    stop.set()
    await asyncio.wait_for(task, 30)
