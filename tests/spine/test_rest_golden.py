"""Golden REST output: every /v2.0 route of the route table, called through HTTP, byte for byte.

One scenario calls every route (successes and the documented errors of each marker) and records
the raw response text. Values that change from run to run (ObjectIds, timestamps, provider ids)
become placeholders (ids numbered in order of first appearance, so a repeated id must still repeat).
The recording in `golden/rest.txt` is compared as text: key order, spacing and every value count.
Each response is also checked against `GET /v2.0/openapi.json`: its status is documented for the route
and its body validates against that status's schema (docs/openapi.md).

Regenerate only on purpose (a documented change of the REST output):
    LEADLINE_WRITE_GOLDEN=1 ./scripts/test tests/spine/test_rest_golden.py
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest
from bson import ObjectId

from leadline.apidocs import OPENAPI_BYTES
from leadline.models.base import utcnow
from leadline.models.billing import Payment, PaymentTax
from leadline.resolvers.billing.admin import set_wallet
from leadline.resolvers.channels.admin import connect_channel
from leadline.schema import OPERATIONS
from tests.helpers import OpenApiResponses
from tests.messaging.support import PHONE, open_window, seed_template, send_body
from tests.templates.support import BRAND, marketing, template_settings

GOLDEN = Path(__file__).parent / "golden" / "rest.txt"
# The recording locked wave 1's output through the move to one declaration per operation; later
# domains are pinned by their own HTTP tests (tests/<domain>/) rather than by this one long scenario.
GOLDEN_DOMAINS = {"billing", "channels", "contacts", "chats", "messaging", "templates", "inbox"}

_VOLATILE = [
    ("oid", re.compile(r"\b[0-9a-f]{24}\b")),
    ("ts", re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?")),
    ("wamid", re.compile(r"wamid\.[A-Za-z0-9+/=_-]+")),
    ("providerTemplateId", re.compile(r"(?<=\")[1-9]\d{15}(?=\")")),
]


class Normaliser:
    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], int] = {}

    def __call__(self, text: str) -> str:
        for kind, pattern in _VOLATILE:
            text = pattern.sub(lambda m, kind=kind: self._placeholder(kind, m.group(0)), text)
        return text

    def _placeholder(self, kind: str, value: str) -> str:
        if kind == "ts":  # two writes may or may not share a millisecond: timestamps are not numbered
            return "<ts>"
        key = (kind, value)
        if key not in self.seen:
            self.seen[key] = sum(1 for k, _ in self.seen if k == kind) + 1
        return f"<{kind}:{self.seen[key]}>"


@pytest.fixture
def settings(settings):
    return replace(template_settings(settings), sandbox_status_delays=(30.0, 31.0, 32.0))


def iso(dt: datetime) -> str:
    return dt.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


async def test_rest_output_of_every_route_is_unchanged(client, tenant):
    normalise = Normaliser()
    lines: list[str] = []
    covered: set[tuple[str, str]] = set()
    documented = OpenApiResponses(json.loads(client.app[OPENAPI_BYTES]))

    # A fresh full-access key per section keeps every section under the per-second rate limit.
    section_key = tenant.legacy_key

    async def section() -> None:
        nonlocal section_key
        section_key = await tenant.key("*")

    async def call(route: str, path: str | None = None, key: str | None = None, **kw):
        method, template = route.split(" ", 1)
        covered.add((method, template))
        headers = {"Authorization": f"Bearer {key or section_key}"}
        async with client.request(method, path or template, headers=headers, **kw) as resp:
            text = await resp.text()
            lines.append(f"### {method} {template} -> {resp.status}\n{normalise(text)}\n")
            body = await resp.json() if text else None
            documented.check(method, template, resp.status, body)  # as GET /v2.0/openapi.json says
            return resp.status, body

    # Billing and account
    await Payment(org_id=ObjectId(tenant.org_id), order_id="order_1", amount=Decimal("59.00"),
                  base_amount=Decimal("50.00"), amount_usd=Decimal("59.00"),
                  tax=PaymentTax(gst=Decimal("9"), gst_percent=Decimal("18"), total_tax=Decimal("9")),
                  created_at=utcnow()).insert()
    await call("GET /v2.0/billing/plan")
    await call("GET /v2.0/billing/subscriptions")
    await call("GET /v2.0/billing/subscriptions", params={"status": "weird"})
    await call("GET /v2.0/billing/payments", params={"limit": "5"})
    await call("GET /v2.0/account/wallet/balance")
    await set_wallet(tenant.org_id, "12.50")
    await call("GET /v2.0/account/wallet/balance")

    # Channels
    await section()
    await call("GET /v2.0/channels/status")
    await connect_channel(tenant.org_id, "chatapp", BRAND, "Acme", "APPROVED")
    await connect_channel(tenant.org_id, "pageapp", "1029384756", "Acme Page")
    await call("GET /v2.0/channels/status")
    await call("GET /v2.0/channels/status", params={"channel": "fax"})

    # Contacts, custom fields, tags
    await section()
    reader = await tenant.key("contacts:read")
    await call("GET /v2.0/contacts/custom_fields")
    _, field = await call("POST /v2.0/contacts/custom_fields",
                          json={"fieldName": "Plan", "fieldType": "dropdown", "options": ["gold", "silver"]})
    field_id = field["data"]["_id"]
    await call("POST /v2.0/contacts/custom_fields", json={"fieldName": "Plan"})
    await call("POST /v2.0/contacts/custom_fields", json={"fieldType": "text"})
    await call("PUT /v2.0/contacts/custom_fields/{fieldId}", f"/v2.0/contacts/custom_fields/{field_id}",
               json={"fieldName": "Plan tier", "options": ["gold", "silver", "bronze"]})
    await call("PUT /v2.0/contacts/custom_fields/{fieldId}", "/v2.0/contacts/custom_fields/nope", json={})
    await call("GET /v2.0/contacts/fields")
    await call("GET /v2.0/contacts/fields", params={"type": "custom"})
    await call("GET /v2.0/contacts/fields", params={"type": "weird"})
    _, tag = await call("POST /v2.0/contacts/tags", json={"name": "vip"})
    tag_id = tag["data"]["_id"]
    await call("POST /v2.0/contacts/tags", json={"name": "vip"})
    await call("POST /v2.0/contacts/tags", json={"name": "alpha"})
    await call("PUT /v2.0/contacts/tags/{tagId}", f"/v2.0/contacts/tags/{tag_id}", json={"name": "VIP"})
    await call("GET /v2.0/contacts/tags")
    await call("POST /v2.0/contacts", json={"phone": "+1 (415) 555-2671", "contactName": "Ann", "email": "ann@x.io",
                                            "customFields": {"plan": "gold"}, "tags": [tag_id], "city": "SF"})
    await call("POST /v2.0/contacts", json={"phone": "14155552671", "notes": "second write"})
    await call("POST /v2.0/contacts", json={"phone": "447911123456", "contactName": "Bob", "optedOut": True})
    await call("POST /v2.0/contacts", json={"contactName": "no phone"})
    await call("POST /v2.0/contacts", json={"phone": "14155550000", "customFields": [1]})
    await call("POST /v2.0/contacts", json={"phone": "14155550000", "unknownField": 1})
    await call("POST /v2.0/contacts", json={"phone": 14155550000})
    await section()
    await call("GET /v2.0/contacts", key=reader)
    await call("GET /v2.0/contacts", params={"page": "2", "limit": "1"}, key=reader)
    await call("GET /v2.0/contacts", params={"limit": "101"}, key=reader)
    await call("POST /v2.0/contacts/filter", json={"filter": {"contactName": "an"}}, key=reader)
    await call("POST /v2.0/contacts/filter", json={"filter": {"customFields.plan": "gold"}, "limit": 10},
               key=reader)
    await call("POST /v2.0/contacts/filter", json={"filter": {"optedOut": True}}, key=reader)
    await call("POST /v2.0/contacts/filter", json={"filter": {"nope": 1}}, key=reader)
    await call("POST /v2.0/contacts/phone", json={"phone": "4155552671", "countryCode": "1"}, key=reader)
    await call("POST /v2.0/contacts/phone", json={"phone": "19999999999"}, key=reader)
    await call("POST /v2.0/contacts/phone", json={"phone": "12345"}, key=reader)
    await call("POST /v2.0/contacts/phone", json={}, key=reader)
    await call("POST /v2.0/contacts", json={"phone": "14155550001"}, key=reader)  # INSUFFICIENT_SCOPE
    await call("DELETE /v2.0/contacts/tags/{tagId}", f"/v2.0/contacts/tags/{tag_id}")
    await call("DELETE /v2.0/contacts/tags/{tagId}", f"/v2.0/contacts/tags/{tag_id}")
    await call("DELETE /v2.0/contacts/tags/{tagId}", "/v2.0/contacts/tags/xyz")
    await call("DELETE /v2.0/contacts/custom_fields/{fieldId}", f"/v2.0/contacts/custom_fields/{field_id}")
    await call("DELETE /v2.0/contacts/custom_fields/{fieldId}", f"/v2.0/contacts/custom_fields/{field_id}")

    # Templates (error bodies carry `error: true`)
    await section()
    seeded = await seed_template(tenant)
    await seed_template(tenant, name="promo", template_id="1689556908129999", category="MARKETING",
                        status="PENDING")
    await call("GET /v2.0/templates")
    await call("GET /v2.0/templates", params={"status": "approved", "category": "UTILITY"})
    await call("GET /v2.0/templates", params={"status": "weird"})
    await call("GET /v2.0/templates/{id}", f"/v2.0/templates/{seeded.id}")
    await call("GET /v2.0/templates/{id}", f"/v2.0/templates/{seeded.template_id}")
    await call("GET /v2.0/templates/{id}", "/v2.0/templates/not-an-id")
    await call("GET /v2.0/templates/{id}", f"/v2.0/templates/{ObjectId()}")
    await call("POST /v2.0/templates", json=marketing())
    await call("POST /v2.0/templates", json=marketing(name="Bad Name", footer={"text": "x" * 61}))
    await call("POST /v2.0/templates", json=marketing(), key=reader)

    # Messaging and scheduled messages
    await section()
    await call("POST /v2.0/chatapp/send", json=send_body())
    await call("POST /v2.0/chatapp/send", json=send_body(bodyParameters=["only one"]))
    await call("POST /v2.0/chatapp/send", json=send_body(brandNumber=None))
    await call("POST /v2.0/chatapp/send", json=send_body(templateId="404"))
    at = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(days=2)
    _, scheduled = await call("POST /v2.0/chatapp/send", json=send_body(scheduledAt=iso(at), timezone="Asia/Kolkata"))
    schedule_id = scheduled["data"]["scheduleId"]
    await call("POST /v2.0/chatapp/send", json=send_body(scheduledAt="2001-01-01T00:00:00Z"))
    await call("POST /v2.0/chatapp/message", json={"to": "447911123456", "brandNumber": BRAND, "type": "text",
                                                   "content": {"body": "hi"}})
    await open_window(tenant.services, PHONE, brand=BRAND)
    await section()
    _, sent = await call("POST /v2.0/chatapp/message", json={"to": PHONE, "brandNumber": BRAND, "type": "text",
                                                             "content": {"body": "Thanks for writing"}})
    await call("POST /v2.0/chatapp/message", json={"to": PHONE, "brandNumber": BRAND, "type": "image",
                                                   "content": {}})
    message_id = sent["data"]["messageId"]
    await call("GET /v2.0/chatapp/message/status", params={"messageId": message_id, "brandNumber": BRAND})
    await call("GET /v2.0/chatapp/message/status", params={"messageId": "wamid.nope", "brandNumber": BRAND})
    await call("GET /v2.0/chatapp/message/status", params={"brandNumber": BRAND})
    await call("GET /v2.0/scheduled-messages")
    await call("GET /v2.0/scheduled-messages", params={"status": "sent"})
    await call("GET /v2.0/scheduled-messages", params={"status": "weird"})
    await call("GET /v2.0/scheduled-messages/{scheduleId}", f"/v2.0/scheduled-messages/{schedule_id}")
    await call("GET /v2.0/scheduled-messages/{scheduleId}", f"/v2.0/scheduled-messages/{ObjectId()}")
    await call("DELETE /v2.0/scheduled-messages/{scheduleId}", f"/v2.0/scheduled-messages/{schedule_id}")
    await call("DELETE /v2.0/scheduled-messages/{scheduleId}", f"/v2.0/scheduled-messages/{schedule_id}")

    # Chats
    await section()
    await call("GET /v2.0/chats/history", params={"phone": PHONE})
    await call("GET /v2.0/chats/history", params={"phone": PHONE, "limit": "1", "excludeInternal": "true"})
    await call("GET /v2.0/chats/history", params={})
    await call("GET /v2.0/chats/history", params={"phone": PHONE, "before": "yesterday"})
    await call("GET /v2.0/chats/history", params={"phone": "19990001111"})
    await call("GET /v2.0/chats/conversations")
    await call("GET /v2.0/chats/conversations", params={"archived": "false", "search": "Ann", "limit": "5"})
    await call("GET /v2.0/chats/conversations", params={"archived": "maybe"})

    # Team inbox (agents are added by the operator)
    await section()
    from leadline.resolvers.inbox.agents import add_agent

    ann = (await add_agent(tenant.org_id, "Ann", "ann@example.com", "manager"))["agentId"]
    bob = (await add_agent(tenant.org_id, "Bob", "bob@example.com", status="invited"))["agentId"]
    await call("GET /v2.0/agents")
    _, created = await call("POST /v2.0/teams", json={"name": "Support", "description": "Tier 1", "color": "#3366ff",
                                                      "emoji": "S", "agentIds": [ann, bob], "managerIds": [ann]})
    team_id = created["data"]["teamId"]
    await call("POST /v2.0/teams", json={"name": "Sales", "agentIds": [ann], "managerIds": [bob]})
    await call("GET /v2.0/teams")
    await call("PATCH /v2.0/teams/{teamId}", f"/v2.0/teams/{team_id}", json={"name": "Help desk", "description": ""})
    await call("PATCH /v2.0/teams/{teamId}", f"/v2.0/teams/{ObjectId()}", json={"name": "x"})
    await call("POST /v2.0/conversations/assign", json={"phone": PHONE, "teamId": team_id})
    await call("POST /v2.0/conversations/assign", json={"phone": PHONE, "agentId": bob, "teamId": team_id})
    await call("GET /v2.0/conversations/statuses")
    await call("POST /v2.0/conversations/status", json={"phone": PHONE, "status": "resolved"})
    await call("POST /v2.0/conversations/status", json={"phone": PHONE, "status": "closed"})
    await call("POST /v2.0/conversations/unassign", json={"phone": PHONE})
    await call("GET /v2.0/conversations/assignment-history", params={"phone": PHONE})
    await call("GET /v2.0/conversations/assignment-history", params={"conversationId": str(ObjectId())})
    await call("GET /v2.0/chats/conversations", params={"limit": "1"})

    # Billing again, now that usage exists
    await call("GET /v2.0/billing/plan")

    assert covered == {(op.rest.method, op.rest.path) for op in OPERATIONS if op.rest and op.domain in GOLDEN_DOMAINS}, \
        "the golden scenario must call every route of its domains"
    recorded = "".join(lines)
    if os.environ.get("LEADLINE_WRITE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(recorded)
    assert GOLDEN.exists(), f"{GOLDEN} is missing; see this module's docstring"
    expected = GOLDEN.read_text().split("### ")
    actual = recorded.split("### ")
    for i, (want, got) in enumerate(zip(expected, actual)):
        assert got == want, f"call {i}: REST output changed"
    assert len(actual) == len(expected)
