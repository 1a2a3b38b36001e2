"""The configuration document: defaults on first read, PUT of the keys present, PATCH settings, atomic writes."""
from __future__ import annotations

import asyncio

from bson import ObjectId

from leadline.models.leads import LeadSegmentation
from tests.helpers import assert_error
from tests.leads.helpers import CATEGORIES, INSIGHTS, SEGMENTATION, followup, make_category, make_insight

DEFAULTS = {"isCategorizationEnabled": False, "isFollowupEnabled": False, "delay": 60, "model": None,
            "provider": None, "triggerPrompt": None, "categorizationToolDescription": None, "categories": [],
            "defaultFollowups": [], "audienceSegments": []}


async def test_first_read_creates_the_defaults_once(api, tenant):
    key = tenant.legacy_key
    first = await api.get(SEGMENTATION, key)
    assert first.status == 200, first.body
    assert first.body == {"success": True, "data": DEFAULTS}
    again = await api.get(SEGMENTATION, key)
    assert again.body == first.body
    assert await LeadSegmentation.count_in(ObjectId(tenant.org_id)) == 1


async def test_put_replaces_only_the_keys_present(api, tenant):
    key = tenant.legacy_key
    await make_category(api, key, "Hot", followups=[followup(60)])
    await make_insight(api, key, "budget", "number")
    put = await api.call("PUT", SEGMENTATION, key, json={
        "model": "gpt-4o", "triggerPrompt": "Classify the lead",
        "categories": [{"name": "Warm", "description": "maybe", "followups": [followup(120, "Still there?")]},
                       {"name": "Cold", "description": "no"}]})
    assert put.status == 200, put.body
    data = put.body["data"]
    assert data["model"] == "gpt-4o" and data["triggerPrompt"] == "Classify the lead" and data["delay"] == 60
    # The list sent replaced the whole list; the lists not sent are untouched.
    assert [c["name"] for c in data["categories"]] == ["Warm", "Cold"]
    assert data["categories"][0] == {"name": "Warm", "description": "maybe", "fuDisabled": False,
                                     "followups": [{"delay": 120, "prompt": "Still there?", "active": True}]}
    assert data["categories"][1]["followups"] == [] and data["categories"][1]["fuDisabled"] is False
    assert [i["key"] for i in data["audienceSegments"]] == ["budget"]
    # Text settings: an empty string clears one, a key not sent keeps its value.
    cleared = await api.call("PUT", SEGMENTATION, key, json={"model": "", "audienceSegments": []})
    assert cleared.body["data"]["model"] is None and cleared.body["data"]["triggerPrompt"] == "Classify the lead"
    assert cleared.body["data"]["audienceSegments"] == [] and len(cleared.body["data"]["categories"]) == 2
    assert (await api.get(SEGMENTATION, key)).body["data"] == cleared.body["data"]


async def test_put_of_every_key(api, tenant):
    key = tenant.legacy_key
    body = {"isCategorizationEnabled": True, "isFollowupEnabled": True, "delay": 30, "model": "m", "provider": "p",
            "triggerPrompt": "t", "categorizationToolDescription": "d",
            "categories": [{"name": "Hot", "description": "buying now", "fuDisabled": True, "followups": []}],
            "defaultFollowups": [followup(3600, "Any questions?", False)],
            "audienceSegments": [{"key": "budget", "name": "Budget", "valueType": "number", "options": ["<1k", "1k+"],
                                  "description": "How much they can spend"}]}
    put = await api.call("PUT", SEGMENTATION, key, json=body)
    assert put.status == 200, put.body
    assert put.body["data"] == {**body, "defaultFollowups": [{"delay": 3600, "prompt": "Any questions?", "active": False}]}


async def test_put_refusals_apply_nothing(api, tenant):
    key = tenant.legacy_key
    await make_category(api, key, "Hot")
    before = (await api.get(SEGMENTATION, key)).body
    dup = await api.call("PUT", SEGMENTATION, key, json={"model": "x", "categories": [
        {"name": "Warm", "description": ""}, {"name": "WARM", "description": ""}]})
    assert_error(dup, 409, "CATEGORY_EXISTS")
    dup_insight = await api.call("PUT", SEGMENTATION, key, json={"audienceSegments": [
        {"key": "a", "name": "A", "description": ""}, {"key": "a", "name": "B", "description": ""}]})
    assert_error(dup_insight, 409, "INSIGHT_EXISTS")
    bad_type = await api.call("PUT", SEGMENTATION, key, json={"audienceSegments": [
        {"key": "a", "name": "A", "valueType": "boolean", "description": ""}]})
    body = assert_error(bad_type, 400, "INVALID_VALUE_TYPE")
    assert body["details"][0]["path"] == "audienceSegments[0].valueType"
    invalid = await api.call("PUT", SEGMENTATION, key, json={
        "delay": -1, "defaultFollowups": [{"delay": -5, "prompt": "x"}, {"delay": 5}],
        "audienceSegments": [{"key": "9lives", "name": "x", "description": ""}], "categories": [{"description": "x"}]})
    body = assert_error(invalid, 400, "VALIDATION_ERROR")
    assert {d["path"] for d in body["details"]} == {
        "delay", "defaultFollowups[0].delay", "defaultFollowups[1].prompt", "audienceSegments[0].key",
        "categories[0].name"}
    wrong_type = await api.call("PUT", SEGMENTATION, key, json={"isFollowupEnabled": "yes"})
    assert_error(wrong_type, 400, "VALIDATION_ERROR")
    unknown = await api.call("PUT", SEGMENTATION, key, json={"colour": "red"})
    assert_error(unknown, 400, "VALIDATION_ERROR")
    assert (await api.get(SEGMENTATION, key)).body == before


async def test_patch_settings_touches_only_settings(api, tenant):
    key = tenant.legacy_key
    await make_category(api, key, "Hot", followups=[followup()])
    await make_insight(api, key, "budget")
    await api.call("PUT", "/v2.0/leads/followups/default", key, json={"followups": [followup(10, "hi")]})
    before = (await api.get(SEGMENTATION, key)).body["data"]
    patched = await api.call("PATCH", f"{SEGMENTATION}/settings", key, json={
        "delay": 5, "provider": "openai", "isCategorizationEnabled": True})
    assert patched.status == 200, patched.body
    after = patched.body["data"]
    assert after == {**before, "delay": 5, "provider": "openai", "isCategorizationEnabled": True}
    assert_error(await api.call("PATCH", f"{SEGMENTATION}/settings", key, json={"categories": []}), 400,
                 "VALIDATION_ERROR")
    assert_error(await api.call("PATCH", f"{SEGMENTATION}/settings", key, json={"delay": -0.5}), 400,
                 "VALIDATION_ERROR")
    assert (await api.get(SEGMENTATION, key)).body["data"] == after


async def test_concurrent_writes_lose_nothing(api, tenant):
    key = tenant.legacy_key
    await api.get(SEGMENTATION, key)
    names = [f"Stage {n}" for n in range(8)]
    results = await asyncio.gather(
        *(api.post(CATEGORIES, key, json={"name": name, "description": name}) for name in names),
        *(api.post(INSIGHTS, key, json={"key": f"k{n}", "name": "K", "description": ""}) for n in range(4)),
        api.call("PATCH", f"{SEGMENTATION}/settings", key, json={"model": "m1"}),
        api.call("PUT", "/v2.0/leads/followups/default", key, json={"followups": [followup()]}))
    assert [r.status for r in results] == [201] * 12 + [200, 200], [r.body for r in results]
    data = (await api.get(SEGMENTATION, key)).body["data"]
    assert sorted(c["name"] for c in data["categories"]) == names
    assert sorted(i["key"] for i in data["audienceSegments"]) == [f"k{n}" for n in range(4)]
    assert data["model"] == "m1" and len(data["defaultFollowups"]) == 1
    stored = await LeadSegmentation.find_one_in(ObjectId(tenant.org_id))
    assert stored.version == 14


async def test_concurrent_creates_of_one_name_make_one_category(api, tenant):
    key = tenant.legacy_key
    results = await asyncio.gather(*(api.post(CATEGORIES, key, json={"name": "Hot", "description": ""})
                                     for _ in range(6)))
    assert sorted(r.status for r in results) == [201] + [409] * 5
    assert [c["name"] for c in (await api.get(CATEGORIES, key)).body["data"]] == ["Hot"]


async def test_scopes(api, tenant):
    reader = await tenant.key("config:read")
    assert (await api.get(SEGMENTATION, reader)).status == 200
    body = assert_error(await api.call("PUT", SEGMENTATION, reader, json={}), 403, "INSUFFICIENT_SCOPE", marker="error")
    assert body["required_scope"] == "config:write"
    other = await tenant.key("contacts:read")
    body = assert_error(await api.get(CATEGORIES, other), 403, "INSUFFICIENT_SCOPE", marker="error")
    assert body["required_scope"] == "config:read"


async def test_graphql_reads_and_writes_the_same_document(api, tenant):
    key = tenant.legacy_key
    created = await api.graphql('mutation { createLeadCategory(input: {name: "Hot", description: "now"}) '
                                '{ name fuDisabled followups { delay } } }', key)
    assert created.body["data"]["createLeadCategory"] == {"name": "Hot", "fuDisabled": False, "followups": []}
    read = await api.graphql("{ leadSegmentation { delay categories { name } audienceSegments { key } } }", key)
    assert read.body["data"]["leadSegmentation"] == {"delay": 60, "categories": [{"name": "Hot"}],
                                                      "audienceSegments": []}
    refused = await api.graphql('mutation { createLeadCategory(input: {name: "hot"}) { name } }', key)
    assert refused.body["errors"][0]["extensions"]["code"] == "CATEGORY_EXISTS"
