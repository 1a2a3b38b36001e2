"""Fan-out under real workers: two `leadline worker` processes racing over one campaign, a worker killed
with `kill -9` mid-campaign, and a campaign paused by the messaging tier that resumes by itself.

The provider is a fake Cloud API on loopback that records every send, so "at most once" is checked
where it matters: at the provider, not in our own tables (message ids are deterministic, so a second
send would not show there)."""
from __future__ import annotations

import asyncio
import itertools
import signal
from collections import Counter

import pytest
from aiohttp import web
from bson import ObjectId

from leadline.models.campaigns import Campaign, CampaignChunk
from leadline.models.chats import ChatMessage
from leadline.resolvers.campaigns import fanout
from leadline.resolvers.channels.admin import connect_channel
from tests import helpers
from tests.campaigns.support import body, report
from tests.templates.support import BRAND

PHONE_NUMBER_ID = "109876543299"


class FakeCloudApi:
    """Accepts every template send after `delay` seconds and remembers who it went to."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay, self.sent, self.ids = delay, [], itertools.count()
        self.app = web.Application()
        self.app.router.add_post("/{phone_number_id}/messages", self.messages)

    async def messages(self, request: web.Request) -> web.Response:
        to = (await request.json())["to"]
        if self.delay:
            await asyncio.sleep(self.delay)
        self.sent.append(to)
        return web.json_response({"messaging_product": "whatsapp", "contacts": [{"input": to, "wa_id": to}],
                                  "messages": [{"id": f"wamid.fake{next(self.ids)}"}]})


@pytest.fixture
async def cloud(aiohttp_server):
    fake = FakeCloudApi(delay=0.002)
    fake.server = await aiohttp_server(fake.app, host="127.0.0.1", port=0)
    return fake


def workers_env(cloud, lease: float, attempt_deadline: float = 30.0) -> dict[str, str]:
    return {"CHATAPP_GRAPH_URL": str(cloud.server.make_url("")).rstrip("/"),
            "LEADLINE_CAMPAIGN_LEASE_SECONDS": str(lease), "LEADLINE_CAMPAIGN_PAUSE_RECHECK_SECONDS": "0.5",
            "LEADLINE_CAMPAIGN_ATTEMPT_DEADLINE_SECONDS": str(attempt_deadline)}


async def meta_brand(tenant, mps: int = 1000) -> None:
    await connect_channel(tenant.org_id, "chatapp", BRAND, "Acme", "APPROVED", provider="meta",
                          provider_id=PHONE_NUMBER_ID, access_token="EAAG-token", messages_per_second=mps,
                          messaging_tier="TIER_UNLIMITED")


def audience(n: int, first: int = 0) -> dict:
    return {"contacts": [{"phone": f"1415{first + i:07d}", "name": f"P{i}"} for i in range(n)]}


async def create(api, writer, template, n: int) -> str:
    resp = await api.post("/v2.0/campaigns", writer, json=body(template, audience=audience(n)))
    assert resp.status == 201, resp.body
    return resp.body["data"]["campaignId"]


async def wait_until_final(api, writer, campaign_id: str, timeout: float = 120) -> dict:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        got = await report(api, writer, campaign_id)
        if got["status"] in ("completed", "failed", "cancelled"):
            return got
        await asyncio.sleep(0.2)
    raise AssertionError(f"campaign still {got['status']} after {timeout} s: {got['counters']}")


async def outcomes_by_phone(tenant, campaign_id: str) -> dict[str, str]:
    chunks = await CampaignChunk.find_raw_in(ObjectId(tenant.org_id), {"campaign_id": ObjectId(campaign_id)},
                                             {"phones": 1, "outcomes": 1})
    return {phone: outcome for c in chunks for phone, outcome in zip(c["phones"], c["outcomes"])}


async def test_two_workers_racing_send_each_recipient_once(api, tenant, brand, template, writer, cloud, settings):
    await meta_brand(tenant)
    n = 2000
    campaign_id = await create(api, writer, template, n)
    # A lease shorter than a chunk's send: each worker also takes over chunks the other is still sending.
    env = workers_env(cloud, lease=0.3)
    procs = [helpers.start_worker(settings, **env) for _ in range(2)]
    try:
        got = await wait_until_final(api, writer, campaign_id)
    finally:
        for proc in procs:
            helpers.stop(proc)
    assert Counter(Counter(cloud.sent).values()) == {1: n}  # every recipient reached, none twice
    assert got["status"] == "completed"
    assert got["counters"]["total"] == n and got["counters"]["sent"] == n and got["failures"] == []
    outcomes = await outcomes_by_phone(tenant, campaign_id)
    assert set(outcomes) == set(cloud.sent) and set(outcomes.values()) == {"sent"}
    org = ObjectId(tenant.org_id)
    assert await ChatMessage.count_in(org, {"campaign_id": ObjectId(campaign_id)}) == n


async def test_a_worker_killed_mid_campaign_loses_nobody_and_repeats_nobody(api, tenant, brand, template, writer,
                                                                             cloud, settings):
    await meta_brand(tenant, mps=500)
    n = 3000
    campaign_id = await create(api, writer, template, n)
    # Only the dead worker's marks are old here, so a short deadline ends them sooner.
    env = workers_env(cloud, lease=1.0, attempt_deadline=2.0)
    first = helpers.start_worker(settings, **env)
    try:
        for _ in range(1500):  # mid-campaign: some chunks sent, most not
            if len(cloud.sent) >= 700:
                break
            await asyncio.sleep(0.02)
        first.send_signal(signal.SIGKILL)
    finally:
        helpers.stop(first, kill=True)
    at_kill = len(cloud.sent)
    assert 700 <= at_kill < n, at_kill
    second = helpers.start_worker(settings, **env)
    try:
        got = await wait_until_final(api, writer, campaign_id)
    finally:
        helpers.stop(second)
    sends = Counter(cloud.sent)
    assert max(sends.values()) == 1  # nobody twice
    outcomes = await outcomes_by_phone(tenant, campaign_id)
    assert len(outcomes) == n and "pending" not in outcomes.values()  # nobody lost: every recipient is final
    sent = {p for p, o in outcomes.items() if o == "sent"}
    interrupted = {p for p, o in outcomes.items() if o == "failed:INTERRUPTED"}
    assert sent | interrupted == set(outcomes)
    assert sent <= set(sends)  # "sent" only when the provider has it
    # At most one group of each chunk in flight when the worker died (it sends IN_FLIGHT chunks at once).
    assert len(interrupted) <= fanout.IN_FLIGHT * fanout.SEND_GROUP
    counters = got["counters"]
    assert (counters["sent"], counters["failed"], counters["pending"]) == (len(sent), len(interrupted), 0)
    assert got["status"] == "completed"
    org = ObjectId(tenant.org_id)
    assert await ChatMessage.count_in(org, {"campaign_id": ObjectId(campaign_id)}) == len(sent)


async def test_the_messaging_tier_pauses_a_campaign_until_it_allows_more(api, tenant, template, writer, services,
                                                                          run_worker, settings):
    await connect_channel(tenant.org_id, "chatapp", BRAND, "Acme", "APPROVED", messaging_tier="TIER_250")
    campaign_id = await create(api, writer, template, 300)
    while await fanout.drain(services, "test-worker", count=4):
        pass
    got = await report(api, writer, campaign_id)
    assert got["status"] == "paused"
    assert (got["counters"]["sent"], got["counters"]["pending"]) == (250, 50)
    campaign = await Campaign.get_in(ObjectId(tenant.org_id), ObjectId(campaign_id))
    assert campaign.paused_until is not None
    # The business moves up a tier: the waiting chunk is offered again and finishes by itself.
    await connect_channel(tenant.org_id, "chatapp", BRAND, "Acme", "APPROVED", messaging_tier="TIER_1K")
    await run_worker()
    got = await report(api, writer, campaign_id)
    assert got["status"] == "completed" and got["counters"]["pending"] == 0
    assert got["counters"]["delivered"] + got["counters"]["read"] == 300
