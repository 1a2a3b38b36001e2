"""The team inbox's queries are index scans in SecantusDB (explain), in the exact shapes the code sends."""
from __future__ import annotations

import pytest
from bson import ObjectId

from leadline.models.channels import ChannelAccount
from leadline.models.chats import Conversation
from leadline.models.inbox import Agent, ConversationActivity, InboxStatus, Team
from leadline.resolvers.inbox.conversations import SORT
from tests.helpers import winning_plan

BY_CREATION = [("created_at", 1), ("_id", 1)]
LATEST = [("at", -1), ("_id", -1)]


@pytest.mark.parametrize("model, filter, sort", [
    # agents: the roster, seats, the email check, members by id
    (Agent, {"org_id": ObjectId()}, BY_CREATION),
    (Agent, {"org_id": ObjectId(), "status": "invited"}, None),
    (Agent, {"org_id": ObjectId(), "email_key": "a@example.com"}, None),
    (Agent, {"_id": {"$in": [ObjectId(), ObjectId()]}}, None),
    (Agent, {"org_id": ObjectId(), "_id": ObjectId()}, None),
    # teams: the list and count, an agent's teams, one team
    (Team, {"org_id": ObjectId()}, BY_CREATION),
    (Team, {"org_id": ObjectId(), "agent_ids": ObjectId()}, None),
    (Team, {"org_id": ObjectId(), "_id": ObjectId()}, None),
    # the status catalogue
    (InboxStatus, {"org_id": ObjectId()}, None),
    (InboxStatus, {"org_id": ObjectId(), "key": "open"}, None),
    # a conversation's activity log and assignment history
    (ConversationActivity, {"org_id": ObjectId(), "conversation_id": ObjectId()}, LATEST),
    (ConversationActivity, {"org_id": ObjectId(), "conversation_id": ObjectId(), "kind": "assigned"}, LATEST),
    # the inbox lists, and the statuses' conversation ids
    (Conversation, {"org_id": ObjectId(), "inbox_status": "resolved"}, SORT),
    (Conversation, {"org_id": ObjectId(), "inbox_status": {"$in": ["open", None]}}, SORT),
    (Conversation, {"org_id": ObjectId(), "assigned_agent_id": ObjectId()}, SORT),
    (Conversation, {"org_id": ObjectId(), "assigned_agent_id": None, "inbox_status": "pending"}, SORT),
    (Conversation, {"org_id": ObjectId(), "assigned_team_id": ObjectId()}, SORT),
    (Conversation, {"org_id": ObjectId(), "assigned_team_id": ObjectId(), "inbox_status": "open"}, SORT),
    (Conversation, {"org_id": ObjectId(), "contact_id": {"$in": [ObjectId(), ObjectId()]}}, None),
    # the locator
    (Conversation, {"org_id": ObjectId(), "contact_id": ObjectId(), "brand_number": "1"}, None),
    (ChannelAccount, {"org_id": ObjectId(), "platform": "chatapp"}, None),
])
async def test_inbox_queries_use_an_index(client, model, filter, sort):
    winning = await winning_plan(model, filter, sort)
    assert "IXSCAN" in winning and "COLLSCAN" not in winning, winning
