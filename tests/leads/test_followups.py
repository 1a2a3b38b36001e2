"""Follow-ups: the listing, the category set and the default set replaced whole."""
from __future__ import annotations

from tests.helpers import assert_error
from tests.leads.helpers import CATEGORIES, FOLLOWUPS, followup, make_category


async def test_listing_and_both_replacements(api, tenant):
    key = tenant.legacy_key
    empty = await api.get(FOLLOWUPS, key)
    assert empty.status == 200 and empty.body["data"] == {"default": [], "categories": []}
    await make_category(api, key, "Hot", followups=[followup(60, "one")])
    await make_category(api, key, "Cold", fuDisabled=True)
    replaced = await api.call("PUT", f"{CATEGORIES}/HOT/followups", key,
                              json={"followups": [followup(0, "now"), followup(86400, "tomorrow", False)]})
    assert replaced.status == 200, replaced.body
    hot = {"name": "Hot", "fuDisabled": False,
           "followups": [{"delay": 0, "prompt": "now", "active": True},
                         {"delay": 86400, "prompt": "tomorrow", "active": False}]}
    assert replaced.body["data"] == {"default": [], "categories": [hot, {"name": "Cold", "fuDisabled": True,
                                                                          "followups": []}]}
    default = await api.call("PUT", f"{FOLLOWUPS}/default", key, json={"followups": [{"delay": 30.5, "prompt": "hi"}]})
    assert default.status == 200, default.body
    assert default.body["data"]["default"] == [{"delay": 30.5, "prompt": "hi", "active": True}]
    assert (await api.get(FOLLOWUPS, key)).body["data"] == default.body["data"]
    assert (await api.get(f"{CATEGORIES}/hot", key)).body["data"] == {**hot, "description": "Hot leads"}
    cleared = await api.call("PUT", f"{FOLLOWUPS}/default", key, json={"followups": []})
    assert cleared.body["data"]["default"] == []


async def test_refusals(api, tenant):
    key = tenant.legacy_key
    await make_category(api, key, "Hot")
    assert_error(await api.call("PUT", f"{CATEGORIES}/warm/followups", key, json={"followups": []}), 404,
                 "CATEGORY_NOT_FOUND")
    body = assert_error(await api.call("PUT", f"{FOLLOWUPS}/default", key, json={}), 400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "followups"
    body = assert_error(await api.call("PUT", f"{CATEGORIES}/hot/followups", key,
                                       json={"followups": [{"delay": -1, "prompt": "x"}, {"delay": 5},
                                                           {"prompt": "no delay"}]}), 400, "VALIDATION_ERROR")
    assert [(d["path"], d["code"]) for d in body["details"]] == [
        ("followups[0].delay", "OUT_OF_RANGE"), ("followups[1].prompt", "REQUIRED"), ("followups[2].delay", "REQUIRED")]
    assert_error(await api.call("PUT", f"{FOLLOWUPS}/default", key, json={"followups": [{"delay": "soon", "prompt": "x"}]}),
                 400, "VALIDATION_ERROR")
    assert (await api.get(FOLLOWUPS, key)).body["data"]["categories"][0]["followups"] == []
