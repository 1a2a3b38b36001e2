"""Live updates reach subscribers on every API process: two `leadline serve` processes share the test's
database and Redis; changes made through one reach the subscribers of both, within 2 seconds, and never
another organisation's."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import aiohttp
import pytest

from leadline.embedded import free_port
from leadline.resolvers.webhooks.dispatch import drain
from tests.chats.support import inbound, wamid
from tests.helpers import make_tenant
from tests.inbox.support import agent, conversation
from tests.inbox.ws import Live, subscribed
from tests.templates.support import APP_SECRET, signed


def _serve(settings) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "MONGODB_URL": settings.mongodb_url, "MONGODB_DATABASE": settings.database_name,
           "REDIS_URL": settings.redis_url, "LEADLINE_REDIS_PREFIX": settings.redis_prefix,
           "CHATAPP_APP_SECRET": APP_SECRET, "LEADLINE_LOG_LEVEL": "WARNING"}
    proc = subprocess.Popen([sys.executable, "-m", "leadline.cli", "serve", "--port", str(port)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if "listening" in line:
            return proc, f"127.0.0.1:{port}"
        if proc.poll() is not None:
            break
    proc.kill()
    raise RuntimeError("leadline serve did not start")


@pytest.fixture
def servers(settings):
    procs = [_serve(settings) for _ in range(2)]
    yield [address for _, address in procs]
    for proc, _ in procs:
        proc.terminate()
    for proc, _ in procs:
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


async def test_updates_reach_subscribers_on_both_processes(client, tenant, brand, key, services, servers):
    one, two = servers
    row = await conversation(tenant)
    cid = str(row.id)
    ann = await agent(tenant, "Ann")
    other = await make_tenant(client, name="Other")
    async with aiohttp.ClientSession() as session:
        def at(address: str, path: str) -> str:
            return f"http://{address}{path}"

        support = await (await session.post(at(two, "/v2.0/teams"), json={"name": "Support", "agentIds": [ann]},
                                            headers={"Authorization": f"Bearer {key}"})).json()
        on_one = await (await Live.open(session.ws_connect, key, url=f"ws://{one}/graphql")).acked()
        on_two = await (await Live.open(session.ws_connect, key, url=f"ws://{two}/graphql")).acked()
        stranger = await (await Live.open(session.ws_connect, other.legacy_key, url=f"ws://{two}/graphql")).acked()
        for live in (on_one, on_two, stranger):
            await live.subscribe()
        prefix = services.settings.redis_prefix
        await subscribed(services.redis, prefix, tenant.org_id, processes=2)
        await subscribed(services.redis, prefix, other.org_id, processes=1)

        async def both(kind: str) -> list[dict]:
            started = time.monotonic()
            updates = [await on_one.update(timeout=2.0), await on_two.update(timeout=2.0)]
            assert time.monotonic() - started < 2.0
            assert [(u["type"], u["conversationId"]) for u in updates] == [(kind, cid)] * 2, updates
            assert updates[0] == updates[1]
            return updates

        # An assignment made through process two.
        resp = await session.post(at(two, "/v2.0/conversations/assign"), headers={"Authorization": f"Bearer {key}"},
                                  json={"conversationId": cid, "teamId": support["data"]["teamId"]})
        assigned = (await resp.json())["data"]
        assert (await both("conversation:assigned"))[0]["payload"] == assigned
        # A status change made through process one.
        await session.post(at(one, "/v2.0/conversations/status"), headers={"Authorization": f"Bearer {key}"},
                           json={"conversationId": cid, "status": "resolved"})
        assert (await both("conversation:status_changed"))[0]["payload"] == {"status": "resolved",
                                                                             "statusFrom": "open"}
        # An inbound message posted to process one, processed by a worker (here: this process).
        mid = wamid()
        raw, headers = signed(inbound("Back again", mid=mid))
        assert (await session.post(at(one, "/webhooks/chatapp"), data=raw, headers=headers)).status == 200
        assert await drain(services, "test") == 1
        message = (await both("message:new"))[0]["payload"]
        assert (message["cmid"], message["text"]) == (mid, "Back again")

        await stranger.nothing(0.3)
        for live in (on_one, on_two, stranger):
            await live.close()
