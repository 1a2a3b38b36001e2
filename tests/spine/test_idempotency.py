"""Idempotency-Key on the REST routes that create or send (docs/idempotency.md), through HTTP."""
from __future__ import annotations

import json

from leadline.models.contacts import Contact
from leadline.rest_compat.compile import compile_routes
from leadline.rest_compat.idempotency import is_idempotent
from leadline.schema import OPERATIONS, schema
from tests.helpers import assert_error, make_tenant
from tests.templates.support import connect_brand, marketing

CONTACTS = "/v2.0/contacts"


async def _post(client, path: str, key: str, body: bytes | str, idem: str | None, **headers: str):
    hdrs = {"Authorization": f"Bearer {key}", "Content-Type": "application/json", **headers}
    if idem is not None:
        hdrs["Idempotency-Key"] = idem
    async with client.post(path, data=body, headers=hdrs) as resp:
        return resp.status, await resp.read(), resp.headers


def test_every_create_and_send_takes_a_key_and_reads_do_not():
    routes = {(r.method, r.path): is_idempotent(r) for r in compile_routes(schema, OPERATIONS)}
    for route in ("POST /v2.0/chatapp/send", "POST /v2.0/chatapp/message", "POST /v2.0/contacts",
                  "POST /v2.0/templates", "POST /v2.0/campaigns", "POST /v2.0/contacts/tags",
                  "POST /v2.0/contacts/custom_fields", "POST /v2.0/assistants", "POST /v2.0/tools"):
        assert routes[tuple(route.split(" "))], route
    for (method, path), flag in routes.items():
        if method != "POST":
            assert not flag, (method, path)
    assert not routes[("POST", "/v2.0/contacts/filter")] and not routes[("POST", "/v2.0/campaigns/preview")]


async def test_a_retry_replays_the_first_answer_byte_for_byte_and_acts_once(client, tenant):
    key = await tenant.key("contacts:write,contacts:read")
    body = {"phone": "14155552671", "contactName": "Ann", "city": "SF"}
    status, first, headers = await _post(client, CONTACTS, key, json.dumps(body), "contact-ann")
    assert status == 201 and "Idempotent-Replayed" not in headers
    # The same JSON, other key order and spacing: the same request.
    same = json.dumps({"city": "SF", "contactName": "Ann", "phone": "14155552671"}, indent=2)
    status2, again, headers2 = await _post(client, CONTACTS, key, same, "contact-ann")
    assert (status2, again) == (201, first) and headers2["Idempotent-Replayed"] == "true"
    assert headers2["Content-Type"].startswith("application/json") and headers2["X-Request-Id"] != headers["X-Request-Id"]
    # Without the replay the second write would have answered 200 "Contact updated".
    [contact] = await Contact.find_in(_oid(tenant), {}).to_list()
    assert contact.contactName == "Ann" and contact.city == "SF"


def _oid(tenant):
    from bson import ObjectId

    return ObjectId(tenant.org_id)


async def test_the_same_key_with_another_request_is_refused(client, tenant):
    key = await tenant.key("contacts:write")
    await _post(client, CONTACTS, key, json.dumps({"phone": "14155552671"}), "k1")
    status, raw, headers = await _post(client, CONTACTS, key, json.dumps({"phone": "14155552672"}), "k1")
    assert status == 422 and json.loads(raw)["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert json.loads(raw)["success"] is False and "Idempotent-Replayed" not in headers
    # Another route under the same key is another request too.
    tags = await tenant.key("config:write")
    status, raw, _ = await _post(client, "/v2.0/contacts/tags", tags, json.dumps({"name": "vip"}), "k1")
    assert status == 201


async def test_keys_belong_to_the_api_key_and_the_organisation(client, tenant):
    first_key = await tenant.key("contacts:write")
    second_key = await tenant.key("contacts:write")
    body = json.dumps({"phone": "14155552671"})
    assert (await _post(client, CONTACTS, first_key, body, "shared"))[0] == 201
    # The same string from another API key of the organisation: a new request (it updates).
    status, raw, headers = await _post(client, CONTACTS, second_key, body, "shared")
    assert status == 200 and json.loads(raw)["data"]["isNew"] is False and "Idempotent-Replayed" not in headers
    other = await make_tenant(client, name="Other")
    other_key = await other.key("contacts:write")
    status, raw, headers = await _post(client, CONTACTS, other_key, body, "shared")
    assert status == 201 and "Idempotent-Replayed" not in headers


async def test_errors_are_kept_and_replayed_except_5xx_and_429(client, tenant):
    key = await tenant.key("contacts:write,templates:write")
    status, first, _ = await _post(client, CONTACTS, key, json.dumps({"contactName": "no phone"}), "bad-1")
    assert status == 400 and json.loads(first)["code"] == "MISSING_PHONE"
    status, again, headers = await _post(client, CONTACTS, key, json.dumps({"contactName": "no phone"}), "bad-1")
    assert (status, again) == (400, first) and headers["Idempotent-Replayed"] == "true"
    # Malformed JSON is a final answer too.
    status, broken, _ = await _post(client, CONTACTS, key, "{nope", "bad-2")
    assert status == 400 and json.loads(broken)["code"] == "INVALID_JSON"
    assert (await _post(client, CONTACTS, key, "{nope", "bad-2"))[2]["Idempotent-Replayed"] == "true"

    # A 429 is not kept: the same key runs again (and is refused again, not replayed).
    await connect_brand(tenant)
    for i in range(2):  # the template submission cap is 2 per minute
        status, raw, _ = await _post(client, "/v2.0/templates", key, json.dumps(marketing(name=f"sale_{i}")), f"t{i}")
        assert status == 201, raw
    capped = json.dumps(marketing(name="sale_3"))
    for _ in range(2):
        status, raw, headers = await _post(client, "/v2.0/templates", key, capped, "t3")
        assert status == 429 and json.loads(raw)["code"] == "TEMPLATE_RATE_LIMITED"
        assert "Idempotent-Replayed" not in headers


async def test_a_malformed_key_is_a_validation_error_and_no_key_changes_nothing(api, client, tenant):
    key = await tenant.key("contacts:write")
    resp = await api.post(CONTACTS, key, json={"phone": "14155552671"}, headers={"Idempotency-Key": "x" * 256})
    body = assert_error(resp, 400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "Idempotency-Key"
    resp = await api.post(CONTACTS, key, json={"phone": "14155552671"}, headers={"Idempotency-Key": "two words"})
    assert_error(resp, 400, "VALIDATION_ERROR")
    first = await api.post(CONTACTS, key, json={"phone": "14155552671"})
    second = await api.post(CONTACTS, key, json={"phone": "14155552671"})
    assert (first.status, second.status) == (201, 200) and "Idempotent-Replayed" not in second.headers
    # Reads ignore the header.
    reader = await tenant.key("contacts:read")
    for _ in range(2):
        resp = await api.get(CONTACTS, reader, headers={"Idempotency-Key": "read-1"})
        assert resp.status == 200 and "Idempotent-Replayed" not in resp.headers
