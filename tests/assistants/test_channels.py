"""Channel binding through HTTP: resolving the connected account, the 409s and CHANNEL_AMBIGUOUS, one
assistant per channel (the previous owner is detached with a channel_update entry), deactivation."""
from __future__ import annotations

import asyncio

from bson import ObjectId

from leadline.models.assistants import Assistant
from tests.assistants.support import CHAT_A, CHAT_B, PAGE, PHOTO, body, connect, create, history
from tests.helpers import assert_error


async def test_binding_resolves_the_connected_account(api, tenant):
    key = tenant.legacy_key
    assert_error(await api.post("/v2.0/assistants", key, json=body(channel={"activate": True, "platform": "chatapp"})),
                 409, "BIZACCT_NOT_FOUND")
    assert_error(await api.post("/v2.0/assistants", key, json=body(channel={"activate": True, "platform": "photoapp"})),
                 409, "PHOTOAPP_NOT_CONNECTED")
    assert_error(await api.post("/v2.0/assistants", key, json=body(channel={"activate": True, "platform": "pageapp"})),
                 409, "PAGEAPP_NOT_CONNECTED")
    await connect(tenant, "chatapp", CHAT_A)
    chat = await create(api, key, channel={"activate": True, "platform": "chatapp"})
    assert (chat["isConnected"], chat["channel"]) == (True, {"platform": "chatapp", "phone": CHAT_A})
    await connect(tenant, "chatapp", CHAT_B)
    err = assert_error(await api.post("/v2.0/assistants", key, json=body(channel={"activate": True,
                                                                                  "platform": "chatapp"})),
                       400, "CHANNEL_AMBIGUOUS")
    assert CHAT_A in err["message"] and CHAT_B in err["message"]
    second = await create(api, key, name="Second", channel={"activate": True, "platform": "chatapp",
                                                            "brandNumber": "+1 555 000 2222"})
    assert second["channel"] == {"platform": "chatapp", "phone": CHAT_B}
    assert_error(await api.post("/v2.0/assistants", key, json=body(channel={"activate": True, "platform": "chatapp",
                                                                            "brandNumber": "15559999999"})),
                 409, "BIZACCT_NOT_FOUND")
    await connect(tenant, "photoapp", PHOTO)
    await connect(tenant, "pageapp", PAGE)
    photo = await create(api, key, name="Photo", channel={"activate": True, "platform": "photoapp"})
    page = await create(api, key, name="Page", channel={"activate": True, "platform": "pageapp", "pageId": PAGE})
    assert photo["channel"] == {"platform": "photoapp", "pageId": PHOTO}
    assert page["channel"] == {"platform": "pageapp", "pageId": PAGE}
    history_entries = await history(api, key, chat["modelId"])
    assert [e["changeType"] for e in history_entries] == ["create"]
    assert history_entries[0]["snapshot"]["channel"] == {"platform": "chatapp", "phone": CHAT_A}


async def test_taking_a_channel_detaches_its_previous_assistant(api, tenant):
    key = tenant.legacy_key
    await connect(tenant, "chatapp", CHAT_A)
    first = await create(api, key, name="First", channel={"activate": True, "platform": "chatapp"})
    second = await create(api, key, name="Second", channel={"activate": True, "platform": "chatapp"})
    assert second["channel"] == {"platform": "chatapp", "phone": CHAT_A}
    detached = (await api.get(f"/v2.0/assistants/{first['modelId']}", key)).body["data"]
    assert (detached["isConnected"], detached["channel"]) == (False, None)
    entries = await history(api, key, first["modelId"])
    assert [(e["versionNumber"], e["changeType"]) for e in entries] == [(2, "channel_update"), (1, "create")]
    assert entries[0]["snapshot"]["channel"] is None and "Second" in entries[0]["changeDescription"]
    # And back, through an update of the first: the second is detached in turn.
    back = await api.call("PATCH", f"/v2.0/assistants/{first['modelId']}", key,
                          json={"channel": {"activate": True, "platform": "chatapp"}})
    assert back.body["data"]["channel"] == {"platform": "chatapp", "phone": CHAT_A}
    assert (await api.get(f"/v2.0/assistants/{second['modelId']}", key)).body["data"]["channel"] is None
    assert [e["changeType"] for e in await history(api, key, second["modelId"])] == ["channel_update", "create"]
    assert [e["changeType"] for e in await history(api, key, first["modelId"])] == [
        "channel_update", "channel_update", "create"]
    connected = await api.get("/v2.0/assistants", key, params={"isConnected": "true"})
    assert [a["name"] for a in connected.body["data"]] == ["First"]


async def test_one_assistant_per_channel_under_concurrency(api, tenant):
    key = tenant.legacy_key
    await connect(tenant, "chatapp", CHAT_A)
    made = [await create(api, key, name=f"Bot {i}") for i in range(4)]
    results = await asyncio.gather(*(api.call("PATCH", f"/v2.0/assistants/{a['modelId']}", key,
                                              json={"channel": {"activate": True, "platform": "chatapp"}})
                                     for a in made))
    assert all(r.status == 200 for r in results), [r.body for r in results]
    holders = await Assistant.find_in(ObjectId(tenant.org_id), {"channel_key": f"chatapp:{CHAT_A}"}).to_list()
    assert len(holders) == 1


async def test_deactivate_disconnects(api, tenant):
    key = tenant.legacy_key
    await connect(tenant, "pageapp", PAGE)
    bot = await create(api, key, channel={"activate": True, "platform": "pageapp"})
    off = await api.call("PATCH", f"/v2.0/assistants/{bot['modelId']}", key, json={"channel": {"deactivate": True}})
    assert off.status == 200 and (off.body["data"]["isConnected"], off.body["data"]["channel"]) == (False, None)
    entries = await history(api, key, bot["modelId"])
    assert (entries[0]["changeType"], entries[0]["changeDescription"]) == ("channel_update",
                                                                          f"Disconnected from pageapp {PAGE}")
    again = await api.call("PATCH", f"/v2.0/assistants/{bot['modelId']}", key, json={"channel": {"deactivate": True}})
    assert again.status == 200 and len(await history(api, key, bot["modelId"])) == 2  # nothing changed
    both = await api.call("PATCH", f"/v2.0/assistants/{bot['modelId']}", key,
                          json={"channel": {"activate": True, "deactivate": True, "platform": "pageapp"}})
    err = assert_error(both, 422, "ASSISTANT_VALIDATION_FAILED", marker="error")
    assert err["details"][0]["path"] == "channel"
