"""Deliveries to real receivers on loopback, verified with the `standardwebhooks` library: the body and
headers, one `webhook-id` per event across endpoints, retries and their schedule, timeouts, 410, filters,
secret rotation, replay, and the endpoint disabled after five failing days."""
from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta

import pytest
from aiohttp import web
from bson import ObjectId

from leadline.models.base import utcnow
from leadline.models.events import NEVER, DomainEvent, WebhookDelivery, WebhookEndpoint
from leadline.resolvers.events.deliveries import RETRY_SCHEDULE
from tests.events.support import (REPLAY, ROTATE, UPDATE, all_dispatched, create_endpoint, deliveries, endpoint_of, gql,
                                  make_due_now, upsert_contact, wait_until)


@pytest.fixture
def fresh_endpoints(monkeypatch):
    """The engine trusts what it read of an endpoint for 2 s; these tests change one behind its back."""
    from leadline.resolvers.events import engine

    monkeypatch.setattr(engine, "ENDPOINT_FRESH", 0.0)


def parse(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


async def test_a_change_is_delivered_signed_with_the_event_id(api, tenant, receiver, engine):
    key = tenant.legacy_key
    endpoint_id, secret = await create_endpoint(api, key, receiver.url, description="CRM")
    contact = await upsert_contact(api, key, "+1 415 555 2671", contactName="Ada")
    [receipt] = await receiver.wait_for(1)
    assert receipt.verifies(secret)
    body = json.loads(receipt.body)
    assert body["type"] == "contact.created" and body["timestamp"].endswith("Z")
    data = body["data"]
    assert data["contactId"] == contact["_id"] and data["phone"] == "14155552671" and "bsuid" in data
    [event] = await DomainEvent.find_in(ObjectId(tenant.org_id), {"kind": "contact.created"}).to_list()
    assert receipt.webhook_id == str(event.id)
    assert abs(int(receipt.headers["webhook-timestamp"]) - receipt.at) < 5
    assert receipt.headers["webhook-signature"].startswith("v1,") and " " not in receipt.headers["webhook-signature"]

    [log] = await wait_until(lambda: _delivered(api, key, endpoint_id), what="delivered in the log")
    assert log["eventId"] == str(event.id) and log["eventType"] == "contact.created"
    assert log["payload"] == body and log["nextAttemptAt"] is None and log["deliveredAt"]
    [attempt] = log["attempts"]
    assert attempt["attempt"] == 1 and attempt["httpStatus"] == 200 and attempt["error"] is None
    assert attempt["responseSnippet"] == "thanks" and attempt["durationMs"] >= 0


async def _delivered(api, key, endpoint_id):
    rows = await deliveries(api, key, endpoint_id)
    return rows if rows and all(r["status"] == "delivered" for r in rows) else None


async def test_one_event_makes_one_delivery_per_endpoint_with_one_webhook_id(api, tenant, receiver_factory, engine):
    key = tenant.legacy_key
    first, second = await receiver_factory(), await receiver_factory()
    _, secret_1 = await create_endpoint(api, key, first.url)
    _, secret_2 = await create_endpoint(api, key, second.url)
    await upsert_contact(api, key, "14155550001")
    [a], [b] = await first.wait_for(1), await second.wait_for(1)
    assert a.webhook_id == b.webhook_id and a.body == b.body
    assert a.verifies(secret_1) and not a.verifies(secret_2) and b.verifies(secret_2)


async def test_a_500_then_a_200_is_two_attempts_about_5_s_apart_with_one_webhook_id(api, tenant, receiver_factory,
                                                                                       engine):
    async def fail_once(receiver, receipt):
        return web.Response(status=500, text="boom") if len(receiver.received) == 1 else web.Response(text="ok")

    receiver = await receiver_factory(fail_once)
    key = tenant.legacy_key
    endpoint_id, secret = await create_endpoint(api, key, receiver.url)
    await upsert_contact(api, key, "14155550002")
    first, second = await receiver.wait_for(2, timeout=30)
    assert first.webhook_id == second.webhook_id and first.body == second.body
    assert first.verifies(secret) and second.verifies(secret)
    assert 5.0 <= second.at - first.at < 8.0
    [log] = await wait_until(lambda: _delivered(api, key, endpoint_id), what="delivered in the log")
    assert [(a["attempt"], a["httpStatus"]) for a in log["attempts"]] == [(1, 500), (2, 200)]
    assert log["attempts"][0]["error"] == "HTTP 500" and log["attempts"][0]["responseSnippet"] == "boom"
    gap = parse(log["attempts"][1]["at"]) - parse(log["attempts"][0]["at"])
    assert timedelta(seconds=5) <= gap < timedelta(seconds=8)


async def test_a_receiver_that_hangs_times_out_and_is_retried(api, tenant, receiver_factory, engine):
    async def hang_once(receiver, receipt):
        if len(receiver.received) == 1:
            await asyncio.sleep(3600)
        return web.Response(text="ok")

    receiver = await receiver_factory(hang_once)
    key = tenant.legacy_key
    endpoint_id, secret = await create_endpoint(api, key, receiver.url)
    await upsert_contact(api, key, "14155550003")
    first, second = await receiver.wait_for(2, timeout=30)
    assert first.webhook_id == second.webhook_id and second.verifies(secret)
    assert first.status is None and second.status == 200  # the first never answered
    [log] = await wait_until(lambda: _delivered(api, key, endpoint_id), what="delivered in the log")
    timed_out, ok = log["attempts"]
    assert timed_out["httpStatus"] is None and timed_out["error"] == "no response within 2 s"
    assert 2000 <= timed_out["durationMs"] < 3000 and ok["httpStatus"] == 200
    # The retry comes 5 s after the timed-out attempt ended.
    assert parse(ok["at"]) - parse(timed_out["at"]) >= timedelta(seconds=7)


async def test_410_gone_disables_the_endpoint_at_once(api, tenant, receiver_factory, engine):
    async def gone(receiver, receipt):
        return web.Response(status=410, text="unsubscribed")

    receiver = await receiver_factory(gone)
    key = tenant.legacy_key
    endpoint_id, _ = await create_endpoint(api, key, receiver.url)
    await upsert_contact(api, key, "14155550004")
    await receiver.wait_for(1)
    endpoint = await wait_until(lambda: _disabled(api, key, endpoint_id), what="endpoint disabled")
    assert endpoint["disabledReason"] == "gone"
    [log] = await deliveries(api, key, endpoint_id)
    assert log["status"] == "failed" and [a["httpStatus"] for a in log["attempts"]] == [410]
    # Later events are not delivered to it.
    await upsert_contact(api, key, "14155550005")
    await wait_until(lambda: all_dispatched(tenant.org_id), what="events dispatched")
    assert len(await deliveries(api, key, endpoint_id)) == 1 and len(receiver.received) == 1
    # Enabled again by hand, it receives new events.
    receiver.handler = _ok
    enabled = (await gql(api, key, UPDATE, id=endpoint_id, input={"isActive": True}))["updateWebhookEndpoint"]
    assert enabled["isActive"] is True and enabled["disabledReason"] is None
    await upsert_contact(api, key, "14155550006")
    await receiver.wait_for(2)


async def _ok(receiver, receipt):
    return web.Response(text="ok")


async def _disabled(api, key, endpoint_id):
    endpoint = await endpoint_of(api, key, endpoint_id)
    return endpoint if not endpoint["isActive"] else None


async def test_event_filters_choose_what_each_endpoint_receives(api, tenant, receiver_factory, engine):
    key = tenant.legacy_key
    created_only, everything = await receiver_factory(), await receiver_factory()
    await create_endpoint(api, key, created_only.url, events=["contact.created"])
    await create_endpoint(api, key, everything.url, events=[])
    await upsert_contact(api, key, "14155550007", contactName="Ada")
    await upsert_contact(api, key, "14155550007", contactName="Ada Lovelace")
    await everything.wait_for(2)
    await wait_until(lambda: all_dispatched(tenant.org_id), what="events dispatched")
    kinds = sorted(json.loads(r.body)["type"] for r in everything.received)
    assert kinds == ["contact.created", "contact.updated"]
    updated = next(json.loads(r.body)["data"] for r in everything.received
                   if json.loads(r.body)["type"] == "contact.updated")
    assert updated["changed"] == ["contactName"] and "bsuid" in updated and updated["phone"] == "14155550007"
    await created_only.wait_for(1)
    assert [json.loads(r.body)["type"] for r in created_only.received] == ["contact.created"]


async def test_rotation_signs_with_both_secrets_for_24_hours(api, tenant, receiver, fresh_endpoints, engine):
    key = tenant.legacy_key
    endpoint_id, old = await create_endpoint(api, key, receiver.url)
    rotated = (await gql(api, key, ROTATE, id=endpoint_id))["rotateWebhookSecret"]
    new = rotated["secret"]
    assert new.startswith("whsec_") and new != old
    until = parse(rotated["previousSecretValidUntil"])
    assert timedelta(hours=23, minutes=59) < until - utcnow() <= timedelta(hours=24)
    await upsert_contact(api, key, "14155550008")
    [receipt] = await receiver.wait_for(1)
    assert len(receipt.headers["webhook-signature"].split(" ")) == 2
    assert receipt.verifies(new) and receipt.verifies(old)
    # 24 hours later only the new secret signs.
    await WebhookEndpoint.update_one_in(ObjectId(tenant.org_id), {"_id": ObjectId(endpoint_id)},
                                        {"$set": {"previous_secret_until": utcnow() - timedelta(seconds=1)}})
    await _after_cache(receiver, api, key, "14155550009")
    last = receiver.received[-1]
    assert len(last.headers["webhook-signature"].split(" ")) == 1
    assert last.verifies(new) and not last.verifies(old)


async def _after_cache(receiver, api, key, phone):
    """An event delivered after the change (the engine reads endpoints afresh: see `fresh_endpoints`)."""
    before = len(receiver.received)
    await upsert_contact(api, key, phone)
    await receiver.wait_for(before + 1)


async def test_replay_sends_again_now_with_the_same_webhook_id(api, tenant, receiver, engine):
    key = tenant.legacy_key
    endpoint_id, secret = await create_endpoint(api, key, receiver.url)
    await upsert_contact(api, key, "14155550010")
    [first] = await receiver.wait_for(1)
    [log] = await wait_until(lambda: _delivered(api, key, endpoint_id), what="delivered in the log")
    replayed = (await gql(api, key, REPLAY, id=log["deliveryId"]))["replayWebhookDelivery"]
    assert replayed["status"] == "pending" and replayed["deliveryId"] == log["deliveryId"]
    _, again = await receiver.wait_for(2)
    assert again.webhook_id == first.webhook_id and again.body == first.body and again.verifies(secret)
    [log] = await wait_until(lambda: _delivered(api, key, endpoint_id), what="delivered again")
    assert [a["attempt"] for a in log["attempts"]] == [1, 2]


async def test_failures_follow_the_schedule_then_the_delivery_fails(api, tenant, receiver_factory, engine):
    async def always_500(receiver, receipt):
        return web.Response(status=503, text="down")

    receiver = await receiver_factory(always_500)
    key, org = tenant.legacy_key, tenant.org_id
    endpoint_id, _ = await create_endpoint(api, key, receiver.url)
    await upsert_contact(api, key, "14155550011")
    await receiver.wait_for(1)
    for attempt, delay in enumerate(RETRY_SCHEDULE, start=1):
        [row] = await wait_until(lambda attempt=attempt: _attempted(org, endpoint_id, attempt), what=f"attempt {attempt} logged")
        last = row.attempts[-1]
        # Each retry is scheduled `delay` after the previous attempt ended.
        ended = last["at"] + timedelta(milliseconds=last["durationMs"])
        assert abs((row.due_at - ended) - delay) < timedelta(seconds=1), (attempt, row.due_at - ended)
        assert row.status == "pending"
        await make_due_now(org, str(row.id))
        await receiver.wait_for(attempt + 1)
    [row] = await wait_until(lambda: _attempted(org, endpoint_id, 10), what="attempt 10 logged")
    assert row.status == "failed" and row.due_at == NEVER and len(row.attempts) == 10
    assert len(set(receiver.ids())) == 1 and len(receiver.received) == 10
    endpoint = await endpoint_of(api, key, endpoint_id)
    assert endpoint["isActive"] is True and endpoint["failingSince"] is not None


async def _attempted(org, endpoint_id, count):
    rows = await WebhookDelivery.find_in(ObjectId(org), {"endpoint_id": ObjectId(endpoint_id)}).to_list()
    return rows if rows and rows[0].attempt_count == count and rows[0].claim is None else None


async def test_an_endpoint_failing_every_attempt_for_5_days_is_disabled(api, tenant, receiver_factory,
                                                                         fresh_endpoints, engine):
    async def always_500(receiver, receipt):
        return web.Response(status=500)

    receiver = await receiver_factory(always_500)
    key, org = tenant.legacy_key, ObjectId(tenant.org_id)
    endpoint_id, _ = await create_endpoint(api, key, receiver.url)
    await upsert_contact(api, key, "14155550012")
    await receiver.wait_for(1)
    endpoint = await wait_until(lambda: _failing(api, key, endpoint_id), what="failing run recorded")
    assert endpoint["isActive"] is True
    # Its failing run began five days ago (as if every attempt since had failed).
    await WebhookEndpoint.update_one_in(org, {"_id": ObjectId(endpoint_id)},
                                        {"$set": {"failing_since": utcnow() - timedelta(days=5, minutes=1)}})
    [row] = await WebhookDelivery.find_in(org, {"endpoint_id": ObjectId(endpoint_id)}).to_list()
    await make_due_now(tenant.org_id, str(row.id))
    await receiver.wait_for(2)
    endpoint = await wait_until(lambda: _disabled(api, key, endpoint_id), what="endpoint disabled")
    assert endpoint["disabledReason"] == "failing"


async def _failing(api, key, endpoint_id):
    endpoint = await endpoint_of(api, key, endpoint_id)
    return endpoint if endpoint["failingSince"] else None


async def test_a_success_ends_a_failing_run(api, tenant, receiver_factory, engine):
    async def fail_once(receiver, receipt):
        return web.Response(status=500) if len(receiver.received) == 1 else web.Response(text="ok")

    receiver = await receiver_factory(fail_once)
    key = tenant.legacy_key
    endpoint_id, _ = await create_endpoint(api, key, receiver.url)
    await upsert_contact(api, key, "14155550013")
    await wait_until(lambda: _failing(api, key, endpoint_id), what="failing run recorded")
    await receiver.wait_for(2, timeout=30)
    await wait_until(lambda: _delivered(api, key, endpoint_id), what="delivered")
    endpoint = await wait_until(lambda: _not_failing(api, key, endpoint_id), what="failing run ended")
    assert endpoint["isActive"] is True


async def _not_failing(api, key, endpoint_id):
    endpoint = await endpoint_of(api, key, endpoint_id)
    return endpoint if endpoint["failingSince"] is None else None
