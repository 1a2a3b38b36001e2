"""The sandbox's simulated review, carried out by a real arq worker against the test Redis."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.templates import MessageTemplate
from leadline.resolvers.templates.review import SANDBOX_JOB, schedule_sandbox_review
from tests.templates.support import marketing, signed, status_update


async def test_sandbox_approves_after_the_delay(api, brand, writer, run_worker):
    created = (await api.post("/v2.0/templates", writer, json=marketing())).body["data"]
    assert await run_worker() == 1
    got = (await api.get(f"/v2.0/templates/{created['templateId']}", writer)).body["data"]
    assert got["status"] == "APPROVED" and got["rejectedReason"] is None
    approved = await api.get("/v2.0/templates", writer, params={"status": "approved"})
    assert approved.body["total"] == 1


async def test_sandbox_rejects_names_starting_with_reject(api, brand, writer, run_worker):
    created = (await api.post("/v2.0/templates", writer, json=marketing(name="reject_me"))).body["data"]
    assert await run_worker() == 1
    got = (await api.get(f"/v2.0/templates/{created['templateDbId']}", writer)).body["data"]
    assert (got["status"], got["rejectedReason"]) == ("REJECTED", "INVALID_FORMAT")


async def test_a_webhook_decision_is_not_overturned_by_the_sandbox_timer(api, brand, writer, run_worker):
    created = (await api.post("/v2.0/templates", writer, json=marketing())).body["data"]
    raw, headers = signed(status_update(created["templateId"], "REJECTED", reason="INVALID_FORMAT"))
    assert (await api.post("/webhooks/chatapp", data=raw, headers=headers)).status == 200
    assert await run_worker() == 1  # the sandbox job ran, and changed nothing
    got = (await api.get(f"/v2.0/templates/{created['templateId']}", writer)).body["data"]
    assert (got["status"], got["rejectedReason"]) == ("REJECTED", "INVALID_FORMAT")


async def test_one_review_job_per_template(services, brand, tenant):
    template = MessageTemplate.new(ObjectId(tenant.org_id), name="t", language="en", category="UTILITY")
    await template.insert()
    await schedule_sandbox_review(services, template, "APPROVED", None)
    await schedule_sandbox_review(services, template, "APPROVED", None)
    queued = await services.arq.zrange(services.settings.arq_queue_name, 0, -1)
    assert [q.decode() for q in queued] == [f"{SANDBOX_JOB}:{template.id}"]
