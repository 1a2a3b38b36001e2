"""Scheduled messages: create (201), list/get/cancel, dispatch by a real arq worker, recovery,
exactly-once with two workers, and the cancel/dispatch race."""
from __future__ import annotations

import asyncio
import random
from datetime import datetime, timedelta, timezone

from bson import ObjectId

from leadline.jobs.worker import build_worker
from leadline.app_keys import SERVICES
from leadline.models.base import utcnow
from leadline.models.chats import ChatMessage
from leadline.models.messaging import ScheduledMessage
from leadline.models.templates import MessageTemplate
from leadline.resolvers.messaging import schedules
from tests.helpers import assert_error, make_tenant
from tests.messaging.support import PHONE, TEMPLATE_ID, outbound_messages, schedule_doc, seed_template, send_body
from tests.templates.support import BRAND

LIST = "/v2.0/scheduled-messages"


def iso(dt: datetime) -> str:
    return dt.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def soon(seconds: float = 1.0) -> str:
    return iso(datetime.now(timezone.utc) + timedelta(seconds=seconds))


async def schedule(api, key, seconds: float = 1.0, **overrides) -> str:
    resp = await api.post("/v2.0/chatapp/send", key, json=send_body(scheduledAt=soon(seconds), **overrides))
    assert resp.status == 201, resp.body
    return resp.body["data"]["scheduleId"]


async def wait_until_due(tenant, schedule_id: str) -> None:
    doc = await schedule_doc(tenant, schedule_id)
    due = doc.scheduled_at.replace(tzinfo=timezone.utc)
    await asyncio.sleep(max(0.0, (due - datetime.now(timezone.utc)).total_seconds()) + 0.05)


async def messages_of(tenant, schedule_id: str) -> list[ChatMessage]:
    return [m for m in await outbound_messages(tenant) if str(m.schedule_id) == schedule_id]


async def test_a_future_send_is_scheduled_with_201(api, tenant, brand, sender, reader):
    await seed_template(tenant)
    at = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(days=2)
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(scheduledAt=iso(at)))
    assert resp.status == 201, resp.body
    data = resp.body["data"]
    assert set(data) == {"scheduleId", "recipient", "scheduledAt", "timezone", "template"}
    assert data["recipient"] == PHONE and data["timezone"] == "UTC"
    assert data["scheduledAt"] == at.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert data["template"] == {"name": "order_update", "id": TEMPLATE_ID, "language": "en"}
    assert await outbound_messages(tenant) == []  # nothing sent yet

    got = await api.get(f"{LIST}/{data['scheduleId']}", reader)
    assert got.status == 200, got.body
    row = got.body["data"]
    assert row["scheduleId"] == data["scheduleId"] and row["status"] == "scheduled" and row["kind"] == "template"
    assert row["type"] == "template" and row["brandNumber"] == BRAND and row["messageId"] is None
    assert row["content"] is None and row["error"] is None and row["template"] == data["template"]


async def test_a_time_without_offset_is_read_in_the_timezone(api, tenant, brand, sender):
    await seed_template(tenant)
    local = (datetime.now(timezone(timedelta(hours=5, minutes=30))) + timedelta(days=1)).replace(microsecond=0)
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(
        scheduledAt=local.replace(tzinfo=None).isoformat(), timezone="Asia/Kolkata"))
    assert resp.status == 201, resp.body
    assert resp.body["data"]["timezone"] == "Asia/Kolkata"
    assert resp.body["data"]["scheduledAt"] == iso(local).replace("Z", ".000Z")
    # An explicit offset wins over the zone.
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(scheduledAt=iso(local), timezone="Asia/Tokyo"))
    assert resp.body["data"]["scheduledAt"] == iso(local).replace("Z", ".000Z")


async def test_schedule_time_and_zone_errors(api, tenant, brand, sender):
    await seed_template(tenant)
    past = iso(datetime.now(timezone.utc) - timedelta(seconds=1))
    for value in (past, "not a time", "2026-13-01T00:00:00"):
        assert_error(await api.post("/v2.0/chatapp/send", sender, json=send_body(scheduledAt=value)),
                     400, "INVALID_SCHEDULE_TIME")
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(scheduledAt=soon(60), timezone="Mars/Base"))
    err = assert_error(resp, 400, "VALIDATION_ERROR")
    assert err["details"][0]["path"] == "timezone"
    # Template checks still apply to a scheduled send.
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(scheduledAt=soon(60), bodyParameters=[]))
    assert_error(resp, 400, "PARAMETER_VALIDATION_ERROR")
    assert await ScheduledMessage.count_in(ObjectId(tenant.org_id)) == 0


async def test_list_filter_pagination_and_isolation(api, tenant, brand, sender, reader, client):
    await seed_template(tenant)
    ids = [await schedule(api, sender, 3600 + i) for i in range(3)]
    cancelled = await api.call("DELETE", f"{LIST}/{ids[0]}", sender)
    assert cancelled.status == 200 and cancelled.body["data"]["status"] == "cancelled", cancelled.body
    assert cancelled.body["data"]["cancelledAt"] is not None

    listed = await api.get(LIST, reader)
    assert listed.status == 200, listed.body
    assert [r["scheduleId"] for r in listed.body["data"]] == ids[::-1]  # newest first
    assert listed.body["pagination"] == {"page": 1, "limit": 50, "total": 3, "totalPages": 1, "hasNext": False}
    only = await api.get(LIST, reader, params={"status": "cancelled"})
    assert [r["scheduleId"] for r in only.body["data"]] == [ids[0]]
    page = await api.get(LIST, reader, params={"limit": 1, "page": 2, "status": "scheduled"})
    assert [r["scheduleId"] for r in page.body["data"]] == [ids[1]]
    assert page.body["pagination"] == {"page": 2, "limit": 1, "total": 2, "totalPages": 2, "hasNext": False}
    for params in ({"limit": 101}, {"limit": 0}, {"page": 0}, {"status": "pending"}):
        assert_error(await api.get(LIST, reader, params=params), 400, "VALIDATION_ERROR")

    other = await make_tenant(client, name="Other")
    other_key = other.legacy_key
    assert (await api.get(LIST, other_key)).body["data"] == []
    assert_error(await api.get(f"{LIST}/{ids[1]}", other_key), 404, "SCHEDULE_NOT_FOUND")
    assert_error(await api.call("DELETE", f"{LIST}/{ids[1]}", other_key), 404, "SCHEDULE_NOT_FOUND")
    assert (await schedule_doc(tenant, ids[1])).status == "scheduled"
    assert_error(await api.get(f"{LIST}/nope", reader), 404, "SCHEDULE_NOT_FOUND")


async def test_cancel_only_while_scheduled(api, tenant, brand, sender, reader):
    await seed_template(tenant)
    schedule_id = await schedule(api, sender, 3600)
    assert (await api.call("DELETE", f"{LIST}/{schedule_id}", sender)).status == 200
    err = assert_error(await api.call("DELETE", f"{LIST}/{schedule_id}", sender), 400, "SCHEDULE_NOT_CANCELLABLE")
    assert "cancelled" in err["message"]
    # A cancelled schedule is never sent, even when its job runs.
    assert await schedules.dispatch(tenant.services, tenant.org_id, schedule_id) == "cancelled"
    assert await messages_of(tenant, schedule_id) == []


async def test_scopes_for_schedules(api, tenant, brand, sender, reader):
    await seed_template(tenant)
    schedule_id = await schedule(api, sender, 3600)
    err = assert_error(await api.get(LIST, sender), 403, "INSUFFICIENT_SCOPE", marker="error")
    assert err["required_scope"] == "messages:read"
    assert_error(await api.get(f"{LIST}/{schedule_id}", sender), 403, "INSUFFICIENT_SCOPE", marker="error")
    err = assert_error(await api.call("DELETE", f"{LIST}/{schedule_id}", reader), 403, "INSUFFICIENT_SCOPE",
                       marker="error")
    assert err["required_scope"] == "messages:send"


async def test_a_real_worker_dispatches_at_the_time(api, tenant, brand, sender, reader, run_worker):
    await seed_template(tenant)
    schedule_id = await schedule(api, sender, 1.0)
    started = datetime.now(timezone.utc)
    await run_worker()  # burst: runs until the deferred dispatch and the sandbox statuses are done
    doc = await schedule_doc(tenant, schedule_id)
    assert doc.status == "sent" and doc.sent_at.replace(tzinfo=timezone.utc) >= doc.scheduled_at.replace(
        tzinfo=timezone.utc), doc
    [message] = await messages_of(tenant, schedule_id)
    assert message.id == doc.message_id and message.status == "read"
    row = (await api.get(f"{LIST}/{schedule_id}", reader)).body["data"]
    assert row["status"] == "sent" and row["messageId"] == str(message.id) and row["sentAt"]
    status = await api.get("/v2.0/chatapp/message/status", reader,
                           params={"messageId": row["messageId"], "brandNumber": BRAND})
    assert status.body["data"]["scheduleId"] == schedule_id
    assert (datetime.now(timezone.utc) - started).total_seconds() < 10


async def test_a_lost_job_is_recovered_by_the_sweep(api, tenant, brand, sender, services, settings, run_worker):
    await seed_template(tenant)
    schedule_id = await schedule(api, sender, 0.5)
    # Redis loses the queue (e.g. a restart without persistence): only the database remembers.
    await services.redis.delete(settings.arq_queue_name)
    await wait_until_due(tenant, schedule_id)
    await run_worker()
    assert (await schedule_doc(tenant, schedule_id)).status == "scheduled"  # nothing knew about it
    assert await schedules.sweep(services, grace=timedelta(0)) == {"enqueued": 1, "settled": 0}
    assert await schedules.sweep(services, grace=timedelta(0)) == {"enqueued": 1, "settled": 0}  # same job id
    await run_worker()
    assert (await schedule_doc(tenant, schedule_id)).status == "sent"
    assert len(await messages_of(tenant, schedule_id)) == 1
    assert await schedules.sweep(services, grace=timedelta(0)) == {"enqueued": 0, "settled": 0}


async def test_an_abandoned_claim_is_settled_without_resending(api, tenant, brand, sender, services):
    await seed_template(tenant)
    org = ObjectId(tenant.org_id)
    stale = utcnow() - timedelta(hours=1)
    sent_id, lost_id = await schedule(api, sender, 3600), await schedule(api, sender, 3600)
    # Both claimed an hour ago; one dispatcher stored its message before stopping, the other did not.
    message = ChatMessage.new(org, brand_number=BRAND, direction="outbound", status="accepted", type="template",
                              phone=PHONE)
    await message.insert()
    for sid, mid in ((sent_id, message.id), (lost_id, ObjectId())):
        await ScheduledMessage.find_in(org, {"_id": ObjectId(sid)}).update(
            {"$set": {"status": "sending", "claimed_at": stale, "message_id": mid}})
    assert await schedules.sweep(services) == {"enqueued": 0, "settled": 2}
    assert (await schedule_doc(tenant, sent_id)).status == "sent"
    lost = await schedule_doc(tenant, lost_id)
    assert lost.status == "failed" and lost.error["code"] == "MESSAGE_SEND_FAILED" and lost.message_id is None
    assert len(await outbound_messages(tenant)) == 1


async def test_two_workers_send_it_once(api, tenant, brand, sender, services, settings, client):
    await seed_template(tenant)
    schedule_id = await schedule(api, sender, 1.0)
    doc = await schedule_doc(tenant, schedule_id)
    # A second job for the same schedule (as the sweep would offer), so both workers have one to run.
    await schedules.enqueue(services, doc, job_id=f"{schedules.DISPATCH_JOB}:{schedule_id}:extra")
    workers = [build_worker(settings, burst=True, handle_signals=False, services=client.app[SERVICES])
               for _ in range(2)]
    try:
        await asyncio.wait_for(asyncio.gather(*(w.async_run() for w in workers)), 30)
    finally:
        for w in workers:
            await w.close()
    assert (await schedule_doc(tenant, schedule_id)).status == "sent"
    assert len(await messages_of(tenant, schedule_id)) == 1
    # And many dispatchers at once: one sends.
    schedule_id = await schedule(api, sender, 0.3)
    await wait_until_due(tenant, schedule_id)
    outcomes = await asyncio.gather(*(schedules.dispatch(services, tenant.org_id, schedule_id) for _ in range(20)))
    assert outcomes.count("sent") == 1 and set(outcomes) <= {"sent", "lost", "sending"}, outcomes
    assert len(await messages_of(tenant, schedule_id)) == 1


async def test_cancel_racing_dispatch_never_yields_both(api, tenant, brand, sender, services):
    await seed_template(tenant)
    ids = [await schedule(api, tenant.legacy_key, 1.0) for _ in range(25)]
    await wait_until_due(tenant, ids[-1])

    async def dispatch(schedule_id: str, head_start: float) -> str:
        # The HTTP cancel has more to do before its update: give it a random head start so both win sometimes.
        await asyncio.sleep(head_start)
        return await schedules.dispatch(services, tenant.org_id, schedule_id)

    async def race(schedule_id: str):
        return (schedule_id, *await asyncio.gather(api.call("DELETE", f"{LIST}/{schedule_id}", sender),
                                                    dispatch(schedule_id, random.uniform(0, 0.004))))

    results = [await race(sid) for sid in ids]
    seen = set()
    for schedule_id, cancelled, outcome in results:
        doc = await schedule_doc(tenant, schedule_id)
        sent = await messages_of(tenant, schedule_id)
        if doc.status == "cancelled":
            assert cancelled.status == 200 and outcome in ("lost", "cancelled") and sent == [], (doc, cancelled.body, outcome)
        else:
            assert doc.status == "sent" and outcome == "sent" and len(sent) == 1, (doc, outcome)
            assert_error(cancelled, 400, "SCHEDULE_NOT_CANCELLABLE")
        seen.add(doc.status)
    assert seen <= {"cancelled", "sent"}


async def test_dispatch_failures_are_recorded(api, tenant, brand, sender, services, run_worker):
    template = await seed_template(tenant)
    paused = await schedule(api, sender, 0.3)
    freeform = await api.post("/v2.0/chatapp/message", sender, json={
        "to": PHONE, "brandNumber": BRAND, "type": "text", "content": {"body": "hi"}, "scheduledAt": soon(0.3)})
    assert freeform.status == 201, freeform.body
    assert set(freeform.body["data"]) == {"scheduleId", "recipient", "scheduledAt", "timezone", "type"}
    await MessageTemplate.find_in(template.org_id, {"_id": template.id}).update({"$set": {"provider_status": "PAUSED"}})
    await run_worker()
    doc = await schedule_doc(tenant, paused)
    assert doc.status == "failed" and doc.error["code"] == "TEMPLATE_NOT_FOUND"
    doc = await schedule_doc(tenant, freeform.body["data"]["scheduleId"])
    assert doc.status == "failed" and doc.error["code"] == "SERVICE_WINDOW_CLOSED"
    assert await outbound_messages(tenant) == []
