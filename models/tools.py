"""AI tools assistants call: definitions by type, secrets, history, run logs (docs/tools.md): the Beanie documents.

A tool's type-specific fields are stored under their API names in `config` (secrets encrypted, see
resolvers/secrets.py), so a patch merges over them and a snapshot restores them as one value.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from beanie import Document, PydanticObjectId
from pydantic import Field
from pymongo import ASCENDING, DESCENDING, IndexModel

from leadline.models.base import TenantDocument, utcnow

RUN_RETENTION_SECONDS = 15 * 24 * 3600


class Tool(TenantDocument):
    name: str
    description: str
    tool_type: str
    is_active: bool = True
    pixel_event: str | None = None
    tags: list[PydanticObjectId] = Field(default_factory=list)
    config: dict[str, Any] = Field(default_factory=dict)
    extra_messages: list[dict[str, Any]] = Field(default_factory=list)
    # The last history version written; updates are conditional on it.
    version: int = 0

    class Settings:
        name = "tools"
        indexes = [
            IndexModel([("org_id", ASCENDING), ("name", ASCENDING)], unique=True),
            IndexModel([("org_id", ASCENDING), ("created_at", DESCENDING)]),
            # A deleted tool tag is pulled from the tools that carry it.
            IndexModel([("org_id", ASCENDING), ("tags", ASCENDING)]),
            # Conditional updates ({_id, org_id, version}). Reads by several ids go through the `_id` index
            # (TenantDocument.get_many_in / find_raw_by_ids_in: `{_id: {$in}}`, IN_BATCH ids per read).
            IndexModel([("org_id", ASCENDING), ("_id", ASCENDING), ("version", ASCENDING)]),
        ]


class ToolVersion(TenantDocument):
    """One history entry: the tool's state after a change (the last 30 are kept; secrets stay encrypted)."""

    tool_id: PydanticObjectId
    version_number: int
    change_type: str  # create, config_update, toggle, restore
    change_description: str
    changed_at: datetime = Field(default_factory=utcnow)
    changed_by: dict[str, Any] = Field(default_factory=dict)
    snapshot: dict[str, Any] = Field(default_factory=dict)

    class Settings:
        name = "tool_versions"
        indexes = [IndexModel([("org_id", ASCENDING), ("tool_id", ASCENDING), ("version_number", DESCENDING)],
                              unique=True)]


class ToolRun(TenantDocument):
    """One call of a tool (a dashboard test now, the assistant runtime later); expires after 15 days."""

    tool_id: PydanticObjectId
    trace_id: str
    tool_name: str
    tool_type: str
    status: str  # success, error, timeout
    error_message: str | None = None
    duration_ms: int = 0
    http_status: int | None = None
    request_url: str | None = None
    request_method: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    # The result as JSON text: a remote answer may hold keys the database refuses ($, dots).
    result_json: str | None = None

    class Settings:
        name = "tool_runs"
        indexes = [
            IndexModel([("org_id", ASCENDING), ("tool_id", ASCENDING), ("created_at", DESCENDING)]),
            IndexModel([("created_at", ASCENDING)], expireAfterSeconds=RUN_RETENTION_SECONDS, name="runs_ttl"),
        ]


class ToolTag(TenantDocument):
    """The organisation's labels for tools (managed through GraphQL)."""

    name: str
    # Lower-cased name: unique within the organisation, case-insensitively.
    name_key: str

    class Settings:
        name = "tool_tags"
        indexes = [IndexModel([("org_id", ASCENDING), ("name_key", ASCENDING)], unique=True)]


class SecretKeyRecord(Document):
    """Development only: the generated key stored secrets are encrypted with, one per database, so every
    process sharing the database (API, worker, admin commands, from any directory) reads the same secrets.
    Production takes its keys from LEADLINE_SECRET_KEY and never writes this."""

    id: str  # type: ignore[assignment]
    key: str
    created_at: datetime = Field(default_factory=utcnow)

    class Settings:
        name = "secret_keys"

    @classmethod
    def database_name(cls) -> str:
        """The database the documents are bound to now (a key belongs to one database)."""
        return cls.get_pymongo_collection().database.name


# The documents this domain registers with Beanie (models/__init__.py collects them).
MODELS: list[type] = [Tool, ToolVersion, ToolRun, ToolTag, SecretKeyRecord]
