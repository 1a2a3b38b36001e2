"""The assistants' and tools' lookups use indexes (SecantusDB explain), and one assistant per channel is
enforced by the database itself."""
from __future__ import annotations

import pytest
from bson import ObjectId
from pymongo.errors import DuplicateKeyError

from leadline.models.assistants import Assistant, AssistantVersion
from leadline.models.channels import ChannelAccount
from leadline.models.tools import Tool, ToolRun, ToolTag, ToolVersion
from tests.helpers import winning_plan

ORG, ID = ObjectId(), ObjectId()


@pytest.mark.parametrize("model, filter, sort", [
    (Assistant, {"org_id": ORG}, [("created_at", -1)]),
    (Assistant, {"org_id": ORG, "channel_key": "chatapp:1555"}, None),
    (Assistant, {"org_id": ORG, "tools": ID}, None),
    (Assistant, {"_id": ID, "org_id": ORG, "version": 3}, None),
    (AssistantVersion, {"org_id": ORG, "assistant_id": ID}, [("version_number", -1)]),
    (AssistantVersion, {"org_id": ORG, "assistant_id": ID, "version_number": 2}, None),
    (Tool, {"org_id": ORG}, [("created_at", -1)]),
    (Tool, {"org_id": ORG, "name": "x"}, None),
    (Tool, {"org_id": ORG, "tags": ID}, None),
    (Tool, {"_id": {"$in": [ID]}}, None),  # get_many_in / find_raw_by_ids_in (the page, an assistant's tools)
    (Tool, {"_id": {"$in": [ID, ObjectId()]}}, None),
    (ToolTag, {"_id": {"$in": [ID, ObjectId()]}}, None),  # a tool's tags
    (Tool, {"_id": ID, "org_id": ORG, "version": 3}, None),
    (ToolVersion, {"org_id": ORG, "tool_id": ID}, [("version_number", -1)]),
    (ToolRun, {"org_id": ORG, "tool_id": ID}, [("created_at", -1)]),
    (ToolTag, {"org_id": ORG}, None),
    (ChannelAccount, {"org_id": ORG, "platform": "chatapp"}, None),
])
async def test_lookups_use_an_index(client, model, filter, sort):
    plan = await winning_plan(model, filter, sort)
    assert "IXSCAN" in plan and "COLLSCAN" not in plan, plan


async def test_one_assistant_per_channel_is_a_unique_index(client):
    org = ObjectId()
    fields = {"name": "a", "provider": "sandbox", "model": "sandbox-echo", "channel_platform": "chatapp",
              "channel_number": "1555", "channel_key": "chatapp:1555"}
    await Assistant.new(org, **fields).insert()
    with pytest.raises(DuplicateKeyError):
        await Assistant.new(org, **fields).insert()
    await Assistant.new(ObjectId(), **fields).insert()  # another organisation
    for _ in range(2):  # unbound assistants do not collide
        await Assistant.new(org, name="b", provider="sandbox", model="sandbox-echo").insert()
