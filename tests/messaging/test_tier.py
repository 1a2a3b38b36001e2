"""The messaging tier: unique recipients of template sends per business number in 24 hours, in Redis."""
from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

from bson import ObjectId

from leadline.models.channels import ChannelAccount
from leadline.resolvers.auth.cache import invalidate_org
from leadline.resolvers.messaging import tier
from tests.helpers import assert_error
from tests.messaging.support import PHONE, seed_template, send_body
from tests.templates.support import BRAND


async def account_of(tenant) -> ChannelAccount:
    return await ChannelAccount.find_one_in(ObjectId(tenant.org_id), {"platform": "chatapp", "number": BRAND})


async def fill(services, account, n: int) -> None:
    for i in range(n):
        await tier.admit(services, account, f"1415555{i:04d}")


async def test_the_first_tier_stops_at_250_unique_recipients(api, tenant, brand, sender, services):
    await seed_template(tenant)
    account = await account_of(tenant)
    assert account.messaging_tier == "TIER_250"
    await fill(services, account, 249)
    assert (await api.post("/v2.0/chatapp/send", sender, json=send_body())).status == 200  # the 250th
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(to="14155552672"))
    err = assert_error(resp, 429, "MESSAGING_LIMIT_REACHED")
    assert (err["limitKey"], err["limit"], err["current"]) == ("messaging_tier", 250, 250)
    assert 0 < err["retryAfter"] <= 24 * 3600 and resp.headers["Retry-After"] == str(err["retryAfter"])
    # A recipient already reached in the window can be sent to again.
    assert (await api.post("/v2.0/chatapp/send", sender, json=send_body(to=PHONE))).status == 200
    assert await tier.usage(services, account) == 250
    # A scheduled send is accepted now and counted when it is dispatched.
    later = (datetime.now(timezone.utc) + timedelta(days=30)).isoformat().replace("+00:00", "Z")
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(to="14155552672", scheduledAt=later))
    assert resp.status == 201


async def test_the_count_is_atomic_under_concurrency(tenant, brand, services):
    account = await account_of(tenant)

    async def one(i: int) -> bool:
        try:
            await tier.admit(services, account, f"1415666{i:04d}")
            return True
        except Exception as exc:  # noqa: BLE001 - only the tier refusal is expected
            assert getattr(exc, "code", None) == "MESSAGING_LIMIT_REACHED", exc
            return False

    results = await asyncio.gather(*(one(i) for i in range(400)))
    assert results.count(True) == 250
    assert await tier.usage(services, account) == 250


async def test_higher_tiers_and_numbers_are_separate(api, tenant, brand, sender, services):
    await seed_template(tenant)
    account = await account_of(tenant)
    await fill(services, account, 250)
    assert_error(await api.post("/v2.0/chatapp/send", sender, json=send_body()), 429, "MESSAGING_LIMIT_REACHED")
    account.messaging_tier = "TIER_2K"
    await account.save()
    # As every change to an account the service makes: running servers drop what they cached of it.
    await invalidate_org(services.redis, services.settings.redis_prefix, account.org_id)
    assert (await api.post("/v2.0/chatapp/send", sender, json=send_body())).status == 200
    assert tier.tier_limit(account) == 2000
    account.messaging_tier = "TIER_UNLIMITED"
    assert tier.tier_limit(account) is None
    from tests.templates.support import connect_brand
    await connect_brand(tenant, number="15550003333")
    other = await ChannelAccount.find_one_in(ObjectId(tenant.org_id), {"number": "15550003333"})
    assert await tier.usage(services, other) == 0


async def test_freeform_replies_do_not_count(api, tenant, brand, sender, services):
    from tests.messaging.support import open_window
    account = await account_of(tenant)
    await fill(services, account, 250)
    await open_window(services)
    resp = await api.post("/v2.0/chatapp/message", sender,
                          json={"to": PHONE, "brandNumber": BRAND, "type": "text", "content": {"body": "hi"}})
    assert resp.status == 200, resp.body
