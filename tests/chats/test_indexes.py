"""The hot chat queries are index scans in SecantusDB (explain), in the exact shapes the code sends."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from bson import ObjectId

from leadline.models.channels import ChannelAccount
from leadline.models.chats import ChatMessage, Conversation
from leadline.models.contacts import Contact
from leadline.resolvers.chats.listing import SORT
from tests.helpers import winning_plan

NOW = datetime.now(timezone.utc)
HISTORY_SORT = [("created_at", -1), ("_id", -1)]



@pytest.mark.parametrize("model, filter, sort", [
    # history: by contact, with the cursor, by business number
    (ChatMessage, {"org_id": ObjectId(), "contact_id": ObjectId()}, HISTORY_SORT),
    (ChatMessage, {"org_id": ObjectId(), "contact_id": ObjectId(), "created_at": {"$lt": NOW}}, HISTORY_SORT),
    (ChatMessage, {"org_id": ObjectId(), "contact_id": ObjectId(), "brand_number": "1"}, HISTORY_SORT),
    (ChatMessage, {"org_id": ObjectId(), "contact_id": ObjectId(), "brand_number": "1", "created_at": {"$lt": NOW}},
     HISTORY_SORT),
    # statuses, reactions and the dedup fallback find a message by provider id
    (ChatMessage, {"cmid": "wamid.x"}, None),
    # conversation list, with and without the archived filter; search reads the same shapes
    (Conversation, {"org_id": ObjectId()}, SORT),
    (Conversation, {"org_id": ObjectId(), "is_archived": False}, SORT),
    (Conversation, {"_id": {"$in": [ObjectId(), ObjectId()]}}, None),
    # the conversation row of a message, and the window
    (Conversation, {"org_id": ObjectId(), "contact_id": ObjectId(), "brand_number": "1"}, None),
    (Conversation, {"org_id": ObjectId(), "contact_id": ObjectId()}, None),
    # webhook routing
    (ChannelAccount, {"provider_phone_number_id": "1122334455667"}, None),
    (ChannelAccount, {"platform": "chatapp", "number": "15550001111"}, None),
    # the sender's contact
    (Contact, {"org_id": ObjectId(), "phone": "447911123456"}, None),
    # a batch of webhook changes: one read per kind for the whole batch (or per organisation in it)
    (ChatMessage, {"cmid": {"$in": ["wamid.x", "wamid.y"]}}, None),
    (Conversation, {"org_id": ObjectId(), "contact_id": {"$in": [ObjectId(), ObjectId()]}}, None),
    (ChannelAccount, {"provider_phone_number_id": {"$in": ["1122334455667", "2"]}}, None),
    (ChannelAccount, {"platform": "chatapp", "number": {"$in": ["15550001111", "15550002222"]}}, None),
    (Contact, {"org_id": ObjectId(), "phone": {"$in": ["447911123456", "14155552671"]}}, None),
    (Contact, {"org_id": ObjectId(), "bsuid": "GB.x"}, None),
])
async def test_hot_chat_queries_use_an_index(client, model, filter, sort):
    winning = await winning_plan(model, filter, sort)
    assert "IXSCAN" in winning and "COLLSCAN" not in winning, winning
