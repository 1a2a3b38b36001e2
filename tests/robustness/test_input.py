"""Hostile input through HTTP against the real stack: free-form JSON limits (depth 8, 64 KiB, no `$` or
`.` keys), rows an older version wrote badly, bodies nested past the decoder, unpaired surrogates, NUL
characters, echoes of huge inputs, oversized URLs and headers, GraphQL batches and GET mutations, far
schedules and overlong template parameters: each a 4xx in the JSON envelope, never a 500."""
from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta, timezone

from bson import ObjectId

from leadline.models.contacts import Contact
from leadline.resolvers.contacts.terms import term
from tests.helpers import assert_error
from tests.messaging.support import send_body, seed_template
from tests.templates.support import connect_brand, marketing

JSON_HEADERS = {"Content-Type": "application/json"}
UPSERT = """mutation($input: ContactInput!) { upsertContact(input: $input) { isNew contact { phone } } }"""


def nested(depth: int, leaf=1) -> dict:
    """{"a": {"a": ... leaf}} with `depth` objects."""
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


def deep_text(depth: int) -> str:
    """A JSON object nested `depth` levels, as text (json.dumps itself cannot go this deep)."""
    return '{"a":' * depth + "1" + "}" * depth


async def contacts_listed(api, key) -> tuple[int, list]:
    resp = await api.get("/v2.0/contacts", key)
    assert resp.status == 200, resp.body
    return resp.body["pagination"]["total"], resp.body["data"]


# --- item 2: free-form JSON limits, and reads that survive a bad row --------------------------------------

async def test_lead_segments_900_deep_are_refused_with_their_path_and_nothing_is_stored(api, tenant):
    key = tenant.legacy_key
    resp = await api.post("/v2.0/contacts", key, json={"phone": "14155552671", "lead_segments": nested(900)})
    body = assert_error(resp, 400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "lead_segments" + ".a" * 8
    assert body["details"][0]["code"] == "TOO_DEEP"
    assert await contacts_listed(api, key) == (0, [])
    # The list, the empty filter and GraphQL stay healthy for the organisation.
    assert (await api.post("/v2.0/contacts/filter", key, json={"filter": {}})).status == 200
    gql = await api.graphql("{ contacts { data { phone } pagination { total } } }", key)
    assert gql.status == 200 and gql.body["data"]["contacts"]["data"] == []


async def test_depth_8_is_accepted_and_9_is_refused(api, tenant):
    key = tenant.legacy_key
    ok = await api.post("/v2.0/contacts", key, json={"phone": "14155552671", "lead_segments": nested(8)})
    assert ok.status == 201, ok.body
    body = assert_error(await api.post("/v2.0/contacts", key, json={"phone": "14155552672",
                                                                      "lead_segments": nested(9)}),
                        400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "lead_segments" + ".a" * 8
    listed = await contacts_listed(api, key)
    assert listed[0] == 1 and listed[1][0]["lead_segments"] == nested(8)


async def test_keys_with_dollar_or_dot_and_oversized_values_are_refused_with_paths(api, tenant):
    key = tenant.legacy_key
    cases = [
        ({"lead_segments": {"a": {"$gt": 1}}}, "lead_segments.a.$gt", "INVALID_KEY"),
        ({"lead_segments": {"a": {"b.c": 1}}}, "lead_segments.a.b.c", "INVALID_KEY"),
        ({"lead_segments": {"$where": "1"}}, "lead_segments.$where", "INVALID_KEY"),
        ({"lead_segments": {"a": [1, {"b": ["x", {"c.d": 2}]}]}}, "lead_segments.a[1].b[1].c.d", "INVALID_KEY"),
        ({"lead_segments": {"big": "x" * (64 * 1024)}}, "lead_segments", "TOO_LARGE"),
        ({"customFields": nested(12)}, "customFields" + ".a" * 8, "TOO_DEEP"),
        ({"customFields": {"a.b": "x"}}, "customFields.a.b", "INVALID_KEY"),
    ]
    for extra, path, code in cases:
        body = assert_error(await api.post("/v2.0/contacts", key, json={"phone": "14155552671", **extra}),
                            400, "VALIDATION_ERROR")
        assert (body["details"][0]["path"], body["details"][0]["code"]) == (path, code), body
    assert await contacts_listed(api, key) == (0, [])
    # Just under the size limit is fine.
    fits = await api.post("/v2.0/contacts", key, json={"phone": "14155552671",
                                                       "lead_segments": {"big": "x" * (63 * 1024)}})
    assert fits.status == 201, fits.body


async def test_graphql_json_variables_and_literals_get_the_same_limits(api, tenant):
    key = tenant.legacy_key
    resp = await api.graphql(UPSERT, key, {"input": {"phone": "14155552671", "lead_segments": nested(50)}})
    assert resp.status == 400, resp.body
    error = resp.body["errors"][0]
    assert error["extensions"]["code"] == "VALIDATION_ERROR"
    assert error["extensions"]["details"][0]["path"] == "input.lead_segments" + ".a" * 8
    resp = await api.graphql(UPSERT, key, {"input": {"phone": "14155552671", "lead_segments": {"x.y": 1}}})
    assert resp.status == 400 and resp.body["errors"][0]["extensions"]["details"][0]["path"] == \
        "input.lead_segments.x.y"
    literal = ('mutation { upsertContact(input: {phone: "14155552671", lead_segments: '
               + "{a: " * 12 + "1" + "}" * 12 + "}) { isNew } }")
    resp = await api.graphql(literal, key)
    assert resp.body["errors"][0]["extensions"]["code"] == "VALIDATION_ERROR", resp.body
    assert resp.body.get("data") is None
    assert await contacts_listed(api, key) == (0, [])


async def test_the_filter_keeps_its_field_paths_but_not_its_depth(api, tenant):
    key = tenant.legacy_key
    await api.post("/v2.0/contacts/custom_fields", key, json={"fieldName": "Score", "fieldType": "number"})
    ok = await api.post("/v2.0/contacts/filter", key, json={"filter": {"customFields.score": [1, 2]}})
    assert ok.status == 200, ok.body
    body = assert_error(await api.post("/v2.0/contacts/filter", key, json={"filter": {"city": nested(20)}}),
                        400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "filter.city" + ".a" * 7


async def test_a_badly_written_row_is_skipped_and_logged_never_a_500(api, tenant, caplog):
    key = tenant.legacy_key
    org = ObjectId(tenant.org_id)
    for phone in ("14155552671", "14155552672"):
        assert (await api.post("/v2.0/contacts", key, json={"phone": phone, "contactName": "Ann"})).status == 201
    not_opted_out = term(org, "optedOut", False)
    # Rows an older version could have written: a value nested past what the serialisers take, a
    # free-form field of the wrong type, a timestamp that is not one.
    bad = [
        {"phone": "14155550001", "seq": 2, "lead_segments": nested(40), "customFields": {}},
        {"phone": "14155550002", "seq": 1, "customFields": "not an object"},
        {"phone": "14155550003", "seq": 2, "created_at": "yesterday"},
    ]
    await Contact.get_pymongo_collection().insert_many(
        [{"org_id": org, "terms": [not_opted_out], "optedOut": False, "tags": [], "version": 0, **row}
         for row in bad])
    caplog.set_level(logging.ERROR, logger="leadline")

    total, data = await contacts_listed(api, key)
    assert total == 2 and [c["phone"] for c in data] == ["14155552672", "14155552671"]
    for flt in ({}, {"optedOut": False}, {"optedOut": False, "contactName": "Ann"}):
        resp = await api.post("/v2.0/contacts/filter", key, json={"filter": flt})
        assert resp.status == 200, (flt, resp.body)
        assert [c["phone"] for c in resp.body["data"]] == ["14155552672", "14155552671"], flt
    gql = await api.graphql("{ contacts { data { phone } } }", key)
    assert gql.status == 200 and "errors" not in gql.body
    assert [c["phone"] for c in gql.body["data"]["contacts"]["data"]] == ["14155552672", "14155552671"]
    skipped = [r for r in caplog.records if "unreadable row" in r.getMessage()]
    assert skipped, "a skipped row is logged"


# --- item 3: bodies, strings and echoes -------------------------------------------------------------------

async def test_json_nested_10000_deep_is_a_400_on_rest_and_graphql(api, tenant):
    key = tenant.legacy_key
    deep = deep_text(10_000)
    for path in ("/v2.0/contacts", "/v2.0/contacts/filter", "/v2.0/contacts/tags"):
        resp = await api.post(path, key, data=deep, headers=JSON_HEADERS)
        assert_error(resp, 400, "INVALID_JSON")
    body = '{"phone": "14155552671", "lead_segments": ' + deep + "}"
    assert_error(await api.post("/v2.0/contacts", key, data=body, headers=JSON_HEADERS), 400, "INVALID_JSON")
    arrays = "[" * 10_000 + "]" * 10_000
    assert_error(await api.post("/v2.0/contacts", key, data=arrays, headers=JSON_HEADERS), 400, "INVALID_JSON")

    gql_body = '{"query": "{ contacts { data { phone } } }", "variables": {"x": ' + deep + "}}"
    resp = await api.post("/graphql", key, data=gql_body, headers=JSON_HEADERS)
    assert resp.status == 400, resp.body
    assert resp.body["errors"][0]["extensions"]["code"] == "INVALID_JSON"
    # Deep enough for the decoder's limit, short enough for the URL's (8 KiB).
    resp = await api.get("/graphql", key, params={"query": "{ contacts { data { phone } } }",
                                                  "variables": "[" * 1100 + "]" * 1100})
    assert resp.status == 400 and resp.body["errors"][0]["extensions"]["code"] == "INVALID_JSON", resp.body
    assert await contacts_listed(api, key) == (0, [])


async def test_an_unpaired_surrogate_is_invalid_json_not_a_500(api, tenant):
    key = tenant.legacy_key
    for body in ('{"phone": "14155552671", "contactName": "\\ud800"}',
                 '{"phone": "14155552671", "lead_segments": {"\\udfff": 1}}',
                 '{"phone": "14155552671", "notes": "ok \\ud83d\\ude00 then \\ud83d"}'):
        assert_error(await api.post("/v2.0/contacts", key, data=body, headers=JSON_HEADERS), 400, "INVALID_JSON")
    # A proper pair (an emoji) is fine.
    ok = await api.post("/v2.0/contacts", key, data='{"phone": "14155552671", "contactName": "\\ud83d\\ude00"}',
                        headers=JSON_HEADERS)
    assert ok.status == 201 and ok.body["data"]["contactName"] == "\U0001F600"
    gql = ('{"query": "mutation($n: String!) { createContactTag(input: {name: $n}) { name } }", '
           '"variables": {"n": "\\ud800"}}')
    resp = await api.post("/graphql", key, data=gql, headers=JSON_HEADERS)
    assert resp.status == 400 and resp.body["errors"][0]["extensions"]["code"] == "INVALID_JSON", resp.body


async def test_null_bytes_in_names_are_validation_errors(api, tenant):
    key = tenant.legacy_key
    await connect_brand(tenant)
    cases = [
        ("/v2.0/contacts", {"phone": "14155552671", "contactName": "Ann\u0000"}, "contactName"),
        ("/v2.0/contacts/tags", {"name": "vip\u0000"}, "name"),
        ("/v2.0/contacts/custom_fields", {"fieldName": "Sco\u0000re"}, "fieldName"),
        ("/v2.0/templates", marketing(name="summer\u0000sale"), "name"),
        ("/v2.0/contacts", {"phone": "14155552671", "lead_segments": {"a\u0000": 1}}, "lead_segments.a\u0000"),
    ]
    for path, body, where in cases:
        resp = await api.post(path, key, json=body)
        assert resp.status == 400, (path, resp.body)
        assert resp.body["code"] == "VALIDATION_ERROR" and resp.body["details"][0]["path"] == where, resp.body
    # Through GraphQL: a variable and an inline literal (`\u0000` escape in the document).
    mutation = "mutation($n: String) { createContactTag(input: {name: $n}) { name } }"
    resp = await api.graphql(mutation, key, {"n": "vip\u0000"})
    assert resp.status == 400 and resp.body["errors"][0]["extensions"]["code"] == "VALIDATION_ERROR"
    resp = await api.graphql('mutation { createContactTag(input: {name: "vip\\u0000"}) { name } }', key)
    assert resp.status == 400 and resp.body["errors"][0]["extensions"]["code"] == "VALIDATION_ERROR", resp.body
    # A query parameter too.
    assert_error(await api.get("/v2.0/contacts/fields", key, params={"type": "all\u0000"}), 400, "VALIDATION_ERROR")
    assert (await api.get("/v2.0/contacts/tags", key)).body["data"] == []
    assert await contacts_listed(api, key) == (0, [])


def _longest_run(text: str, char: str) -> int:
    best = run = 0
    for c in text:
        run = run + 1 if c == char else 0
        best = max(best, run)
    return best


async def test_error_messages_echo_at_most_100_characters_of_the_input(api, tenant):
    key = tenant.legacy_key
    huge = "9" * 1_000_000
    resp = await api.post("/v2.0/contacts", key, json={"phone": huge})
    body = assert_error(resp, 400, "INVALID_PHONE_NUMBER")
    resp = await api.post("/v2.0/contacts", key, json={"phone": "14155552671", "countryCode": huge})
    body2 = assert_error(resp, 400, "INVALID_PHONE_NUMBER")
    resp = await api.post("/v2.0/contacts/phone", key, json={"phone": huge})
    body3 = assert_error(resp, 400, "INVALID_PHONE_NUMBER")
    for b in (body, body2, body3):
        assert _longest_run(json.dumps(b), "9") <= 100, len(json.dumps(b))

    unknown = "k" * 50_000
    body = assert_error(await api.post("/v2.0/contacts", key, json={"phone": "14155552671", unknown: 1}),
                        400, "VALIDATION_ERROR")
    assert _longest_run(json.dumps(body), "k") <= 100
    await api.post("/v2.0/contacts/custom_fields", key,
                   json={"fieldName": "Plan", "fieldType": "dropdown", "options": ["a", "b"]})
    body = assert_error(await api.post("/v2.0/contacts", key, json={"phone": "14155552671",
                                                                    "customFields": {"plan": "z" * 50_000}}),
                        400, "VALIDATION_ERROR")
    assert _longest_run(json.dumps(body), "z") <= 100
    body = assert_error(await api.post("/v2.0/contacts", key, json={"phone": "14155552671",
                                                                    "contactName": ["n" * 50_000]}),
                        400, "VALIDATION_ERROR")
    assert _longest_run(json.dumps(body), "n") <= 100
    gql = await api.graphql(UPSERT, key, {"input": {"phone": huge}})
    assert _longest_run(json.dumps(gql.body), "9") <= 100


async def test_oversized_url_and_headers_answer_in_the_json_envelope(api, tenant):
    key = tenant.legacy_key
    for path in ("/v2.0/contacts", "/graphql", "/v2.0/nowhere"):
        resp = await api.get(f"{path}?q={'a' * 20_000}", key)
        assert_error(resp, 414, "URI_TOO_LONG")
        assert resp.headers["Content-Type"].startswith("application/json")
        resp = await api.get(path, key, headers={"X-Big": "b" * 20_000})
        assert_error(resp, 431, "HEADERS_TOO_LARGE")
        many = {f"X-H{i}": "h" * 1000 for i in range(40)}
        assert_error(await api.get(path, key, headers=many), 431, "HEADERS_TOO_LARGE")
    # Ordinary sizes pass.
    assert (await api.get(f"/v2.0/contacts?q={'a' * 4000}", key)).status == 200


async def test_graphql_batches_and_get_mutations_answer_in_the_envelope_and_do_nothing(api, tenant):
    key = tenant.legacy_key
    mutation = 'mutation { createContactTag(input: {name: "vip"}) { name } }'
    batch = [{"query": mutation}, {"query": "{ contactTags { data { name } } }"}]
    resp = await api.post("/graphql", key, json=batch)
    body = assert_error(resp, 400, "INVALID_BODY")
    assert body["errors"][0]["extensions"]["code"] == "INVALID_BODY"
    resp = await api.get("/graphql", key, params={"query": mutation})
    body = assert_error(resp, 405, "METHOD_NOT_ALLOWED")
    assert resp.headers["Allow"] == "POST" and body["errors"][0]["message"] == body["message"]
    assert (await api.get("/v2.0/contacts/tags", key)).body["data"] == []
    # A GET query still works.
    resp = await api.get("/graphql", key, params={"query": "{ contactTags { data { name } } }"})
    assert resp.status == 200 and resp.body["data"]["contactTags"]["data"] == []


async def test_a_graphql_body_that_is_not_json_or_not_an_operation_is_an_envelope(api, tenant):
    key = tenant.legacy_key
    resp = await api.post("/graphql", key, data="{nope", headers=JSON_HEADERS)
    assert_error(resp, 400, "INVALID_JSON")
    resp = await api.post("/graphql", key, json={"query": 5})
    assert_error(resp, 400, "INVALID_BODY")
    resp = await api.post("/graphql", key, json={"query": "{ contacts { nope } }"})
    assert resp.status == 400 and resp.body["errors"] and resp.body.get("data") is None


# --- item 3: schedules and template parameters ------------------------------------------------------------

def _iso(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


async def test_a_schedule_more_than_a_year_ahead_is_refused(api, tenant):
    await connect_brand(tenant)
    await seed_template(tenant)
    sender = await tenant.key("messages:send")
    now = datetime.now(timezone.utc)
    for at in (_iso(now + timedelta(days=400)), "9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00+14:00"):
        resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(scheduledAt=at))
        assert_error(resp, 400, "INVALID_SCHEDULE_TIME")
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(scheduledAt="2" * 200_000))
    body = assert_error(resp, 400, "INVALID_SCHEDULE_TIME")
    assert _longest_run(body["message"], "2") <= 100
    ok = await api.post("/v2.0/chatapp/send", sender, json=send_body(scheduledAt=_iso(now + timedelta(days=300))))
    assert ok.status == 201, ok.body


async def test_a_template_body_parameter_over_1024_characters_is_refused(api, tenant):
    await connect_brand(tenant)
    await seed_template(tenant)
    sender = await tenant.key("messages:send")
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(bodyParameters=["Ann", "x" * 1025]))
    body = assert_error(resp, 400, "PARAMETER_VALIDATION_ERROR")
    assert body["details"][0]["path"] == "bodyParameters[1]" and body["details"][0]["code"] == "TOO_LONG"
    assert "x" * 101 not in json.dumps(body)
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(bodyParameters=["Ann", "x" * 1024]))
    assert resp.status != 400, resp.body
