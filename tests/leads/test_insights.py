"""Lead insights (audience segments): keys, value types, immutability, duplicates."""
from __future__ import annotations

from tests.helpers import assert_error
from tests.leads.helpers import INSIGHTS, make_insight


async def test_create_list_get_patch_delete(api, tenant):
    key = tenant.legacy_key
    created = await api.post(INSIGHTS, key, json={"key": "budget", "name": "Budget", "description": "How much",
                                                  "options": [" <1k ", "1k+", "<1k", ""]})
    assert created.status == 201, created.body
    assert created.body["data"] == {"key": "budget", "name": "Budget", "valueType": "text", "options": ["<1k", "1k+"],
                                    "description": "How much"}
    await make_insight(api, key, "moveIn_date", "DATE")
    listing = await api.get(INSIGHTS, key)
    assert [(i["key"], i["valueType"]) for i in listing.body["data"]] == [("budget", "text"), ("moveIn_date", "date")]
    assert listing.body["meta"] == {"total": 2}
    assert (await api.get(f"{INSIGHTS}/budget", key)).body["data"]["name"] == "Budget"
    assert_error(await api.get(f"{INSIGHTS}/Budget", key), 404, "INSIGHT_NOT_FOUND")
    patched = await api.call("PATCH", f"{INSIGHTS}/budget", key, json={"valueType": "number", "options": [],
                                                                       "name": "Budget (USD)"})
    assert patched.status == 200, patched.body
    assert patched.body["data"] == {"key": "budget", "name": "Budget (USD)", "valueType": "number", "options": [],
                                    "description": "How much"}
    deleted = await api.call("DELETE", f"{INSIGHTS}/budget", key)
    assert deleted.status == 200 and deleted.body["data"] == {"key": "budget", "name": "Budget (USD)"}
    assert_error(await api.call("DELETE", f"{INSIGHTS}/budget", key), 404, "INSIGHT_NOT_FOUND")
    assert [i["key"] for i in (await api.get(INSIGHTS, key)).body["data"]] == ["moveIn_date"]


async def test_refusals(api, tenant):
    key = tenant.legacy_key
    await make_insight(api, key, "budget")
    assert_error(await api.post(INSIGHTS, key, json={"key": "budget", "name": "again"}), 409, "INSIGHT_EXISTS")
    body = assert_error(await api.post(INSIGHTS, key, json={"key": "tags", "name": "T", "valueType": "list"}), 400,
                        "INVALID_VALUE_TYPE")
    assert body["details"][0]["path"] == "valueType"
    for bad in ("1st", "first-name", "a b", "_x", "", "é"):
        body = assert_error(await api.post(INSIGHTS, key, json={"key": bad, "name": "x"}), 400, "VALIDATION_ERROR")
        assert body["details"][0]["path"] == "key"
    assert_error(await api.post(INSIGHTS, key, json={"name": "no key"}), 400, "VALIDATION_ERROR")
    body = assert_error(await api.call("PATCH", f"{INSIGHTS}/budget", key, json={"key": "budget2"}), 400,
                        "VALIDATION_ERROR")
    assert body["details"][0] == {"path": "key", "code": "IMMUTABLE",
                                  "message": "key cannot change; create a new insight instead"}
    assert_error(await api.call("PATCH", f"{INSIGHTS}/budget", key, json={"key": "budget"}), 400, "VALIDATION_ERROR")
    assert_error(await api.call("PATCH", f"{INSIGHTS}/budget", key, json={"valueType": "bool"}), 400,
                 "INVALID_VALUE_TYPE")
    assert_error(await api.call("PATCH", f"{INSIGHTS}/nope", key, json={"name": "x"}), 404, "INSIGHT_NOT_FOUND")
    assert (await api.get(f"{INSIGHTS}/budget", key)).body["data"]["valueType"] == "text"
