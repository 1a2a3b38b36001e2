"""AI assistants: configuration, channel binding, version history (docs/assistants.md): the Beanie documents.

The configuration fields are stored under their API names in `config` (one dict: partial updates,
snapshots and restores handle it as a whole); `tools` is a field of its own because a deleted tool is
pulled from it through its index.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from beanie import PydanticObjectId
from pydantic import Field
from pymongo import ASCENDING, DESCENDING, IndexModel

from leadline.models.base import TenantDocument, utcnow


class Assistant(TenantDocument):
    name: str
    provider: str
    model: str
    is_active: bool = True
    # The bound channel: `chatapp` + business number, or `photoapp`/`pageapp` + account/page id; None: not
    # connected. `channel_key` ("platform:number") is unique per organisation (one assistant per channel).
    channel_platform: str | None = None
    channel_number: str | None = None
    channel_key: str | None = None
    config: dict[str, Any] = Field(default_factory=dict)
    tools: list[PydanticObjectId] = Field(default_factory=list)
    # The last history version written; updates are conditional on it.
    version: int = 0
    # `clearChatHistory`: the assistant's AI memory starts again after this instant.
    chat_history_cleared_at: datetime | None = None

    class Settings:
        name = "assistants"
        indexes = [
            IndexModel([("org_id", ASCENDING), ("created_at", DESCENDING)]),
            # Enforcement only (SecantusDB plans no query on a partial index): the next one serves lookups.
            IndexModel([("org_id", ASCENDING), ("channel_key", ASCENDING)], unique=True, name="one_assistant_per_channel",
                       partialFilterExpression={"channel_key": {"$type": "string"}}),
            IndexModel([("org_id", ASCENDING), ("channel_key", ASCENDING), ("created_at", ASCENDING)]),
            # A deleted tool is pulled from the assistants that use it.
            IndexModel([("org_id", ASCENDING), ("tools", ASCENDING)]),
            # Conditional updates filter on {_id, org_id, version}.
            IndexModel([("org_id", ASCENDING), ("_id", ASCENDING), ("version", ASCENDING)]),
        ]


class AssistantVersion(TenantDocument):
    """One history entry: the assistant's state after a change (the last 30 are kept)."""

    assistant_id: PydanticObjectId
    version_number: int
    change_type: str  # create, config_update, toggle, channel_update, restore
    change_description: str
    changed_at: datetime = Field(default_factory=utcnow)
    changed_by: dict[str, Any] = Field(default_factory=dict)
    snapshot: dict[str, Any] = Field(default_factory=dict)

    class Settings:
        name = "assistant_versions"
        indexes = [IndexModel([("org_id", ASCENDING), ("assistant_id", ASCENDING), ("version_number", DESCENDING)],
                              unique=True)]


# The documents this domain registers with Beanie (models/__init__.py collects them).
MODELS: list[type] = [Assistant, AssistantVersion]
