"""POST/GET /webhooks/chatapp: handshake, signature, template review and quality, idempotency, samples."""
from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from bson import ObjectId

from leadline.models.templates import MessageTemplate
from leadline.resolvers.webhooks.signature import sign
from tests.helpers import make_tenant
from tests.templates.support import APP_SECRET, BRAND, VERIFY_TOKEN, connect_brand, signed, status_update

# Real Cloud API payloads (pywa's test data, MIT: see the LICENSE file beside them), kept in the repository.
SAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "whatsapp-webhooks"
SAMPLE_FILES = 11


def samples() -> list[tuple[str, dict]]:
    """Every named sample of every file; raises (failing collection) when the fixture files are missing."""
    files = sorted(SAMPLES.glob("*.json"))
    if len(files) != SAMPLE_FILES:
        raise RuntimeError(f"expected {SAMPLE_FILES} webhook sample files in {SAMPLES}, found {len(files)}")
    found = []
    for path in files:
        for name, payload in json.loads(path.read_text()).items():
            found.append((f"{path.stem}:{name}", payload))
    return found


async def seeded(tenant, template_id: str, **fields) -> MessageTemplate:
    fields = {"name": "order_confirmation", "language": "en_US", "category": "UTILITY", **fields}
    template = MessageTemplate.new(ObjectId(tenant.org_id), template_id=template_id, **fields)
    await template.insert()
    return template


async def reload(template: MessageTemplate) -> MessageTemplate:
    return await MessageTemplate.get_in(template.org_id, template.id)


async def post(api, payload, secret: str = APP_SECRET):
    raw, headers = signed(payload, secret)
    return await api.post("/webhooks/chatapp", data=raw, headers=headers)


async def test_handshake_echoes_the_challenge_only_with_the_token(api):
    ok = await api.get("/webhooks/chatapp", params={"hub.mode": "subscribe", "hub.verify_token": VERIFY_TOKEN,
                                                    "hub.challenge": "1158201444"})
    assert (ok.status, ok.body) == (200, 1158201444)  # the body is the challenge, as sent
    bad = await api.get("/webhooks/chatapp", params={"hub.mode": "subscribe", "hub.verify_token": "nope",
                                                     "hub.challenge": "1"})
    assert bad.status == 403


async def test_missing_or_wrong_signature_is_refused(api, tenant):
    template = await seeded(tenant, "1689556908129832")
    payload = status_update("1689556908129832", "APPROVED")
    raw = json.dumps(payload).encode()
    missing = await api.post("/webhooks/chatapp", data=raw, headers={"Content-Type": "application/json"})
    assert missing.status == 401 and missing.body["code"] == "INVALID_SIGNATURE"
    assert (await post(api, payload, secret="another-secret")).status == 401
    tampered_raw, headers = signed(payload)
    tampered = await api.post("/webhooks/chatapp", data=tampered_raw.replace(b"APPROVED", b"REJECTED"),
                              headers=headers)
    assert tampered.status == 401
    assert (await reload(template)).status == "PENDING"


async def test_status_updates_approve_and_reject_with_the_reason(api, tenant):
    approved = await seeded(tenant, "1689556908129832")
    rejected = await seeded(tenant, "1689556908129835", name="abandoned_cart")
    fixture = json.loads((SAMPLES / "template_status_update.json").read_text())
    assert (await post(api, fixture["approved"])).status == 200
    assert (await post(api, fixture["rejected"])).status == 200
    a, r = await reload(approved), await reload(rejected)
    assert (a.status, a.rejected_reason, a.provider_status) == ("APPROVED", None, "APPROVED")
    assert (r.status, r.rejected_reason) == ("REJECTED", "INVALID_FORMAT")
    assert r.rejection_info["reason"].startswith("Your template has parameters placed next to each other")


async def test_redelivery_changes_nothing_and_older_events_are_ignored(api, tenant):
    template = await seeded(tenant, "1689556908129832")
    newer = status_update("1689556908129832", "REJECTED", time=2000, reason="TAG_CONTENT_MISMATCH")
    assert (await post(api, newer)).status == 200
    first = await reload(template)
    assert (await post(api, newer)).status == 200  # redelivered
    again = await reload(template)
    assert (again.status, again.rejected_reason, again.last_event_time) == ("REJECTED", "TAG_CONTENT_MISMATCH", 2000)
    assert again.updated_at >= first.updated_at
    older = status_update("1689556908129832", "APPROVED", time=1000)
    assert (await post(api, older)).status == 200
    assert (await reload(template)).status == "REJECTED"


async def test_the_template_is_found_in_every_organisation_holding_it_and_only_there(api, client, tenant):
    other = await make_tenant(client, name="Other")
    mine = await seeded(tenant, "1689556908129832")
    theirs = await seeded(other, "1689556908129832")
    unrelated = await seeded(other, "999")
    assert (await post(api, status_update("1689556908129832", "APPROVED"))).status == 200
    assert (await reload(mine)).status == "APPROVED" and (await reload(theirs)).status == "APPROVED"
    assert (await reload(unrelated)).status == "PENDING"


async def test_quality_and_category_updates(api, tenant):
    template = await seeded(tenant, "806312974732579", status="APPROVED")
    quality = json.loads((SAMPLES / "template_quality_update.json").read_text())["yellow"]
    assert (await post(api, quality)).status == 200
    assert (await reload(template)).quality_score == "YELLOW"
    stale = json.loads(json.dumps(quality))
    stale["entry"][0]["time"] -= 100
    stale["entry"][0]["changes"][0]["value"]["new_quality_score"] = "RED"
    assert (await post(api, stale)).status == 200
    assert (await reload(template)).quality_score == "YELLOW"
    category = json.loads((SAMPLES / "template_category_update.json").read_text())["marketing"]
    category["entry"][0]["changes"][0]["value"]["message_template_id"] = 806312974732579
    assert (await post(api, category)).status == 200
    assert (await reload(template)).category == "MARKETING"


async def test_a_paused_template_keeps_its_status_but_is_not_sendable(api, tenant):
    template = await seeded(tenant, "1689556908129832", status="APPROVED")
    org = ObjectId(tenant.org_id)
    assert await MessageTemplate.find_sendable(org, template_id="1689556908129832") is not None
    assert (await post(api, status_update("1689556908129832", "PAUSED", time=3000))).status == 200
    assert (await reload(template)).status == "APPROVED"
    assert await MessageTemplate.find_sendable(org, template_id="1689556908129832") is None
    assert (await post(api, status_update("1689556908129832", "REINSTATED", time=4000))).status == 200
    assert await MessageTemplate.find_sendable(org, template_id="1689556908129832") is not None


@pytest.mark.parametrize("name,payload", samples(), ids=[n for n, _ in samples()])
async def test_every_fixture_sample_is_acknowledged(api, tenant, caplog, name, payload):
    await connect_brand(tenant, provider_id="PHONE_NUMBER_ID_UNUSED")
    for entry in payload.get("entry", []):
        for change in entry.get("changes", []):
            metadata = change.get("value", {}).get("metadata")
            if isinstance(metadata, dict):
                metadata["display_phone_number"] = BRAND
    with caplog.at_level(logging.INFO, logger="leadline.webhooks"):
        resp = await post(api, payload)
    assert resp.status == 200, resp.body
    assert resp.body == {"success": True}
    if name.startswith("user_marketing_preferences"):  # no handler for the field: acknowledged and logged
        assert any("not handled" in r.getMessage() for r in caplog.records)
    # `messages` changes are queued; what the worker makes of each sample: test_message_samples.py


async def test_malformed_bodies(api):
    raw = b"{not json"
    resp = await api.post("/webhooks/chatapp", data=raw, headers={"X-Hub-Signature-256": sign(APP_SECRET, raw)})
    assert resp.status == 400 and resp.body["code"] == "INVALID_JSON"
    odd = {"object": "whatsapp_business_account", "entry": [{"changes": [
        {"field": "message_template_status_update", "value": {"event": "APPROVED"}}, "junk"]}, 7]}
    assert (await post(api, odd)).status == 200
