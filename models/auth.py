"""Organisations (the tenants) and their API keys."""
from __future__ import annotations

from datetime import datetime
from typing import Literal

from beanie import Document
from pydantic import Field
from pymongo import ASCENDING, IndexModel

from leadline.models.base import TenantDocument, utcnow

PlanName = Literal["free", "growth", "pro", "business"]


class Organisation(Document):
    name: str
    plan: PlanName = "free"
    timezone: str = "UTC"
    is_active: bool = True
    # Origins allowed to call the API from a browser; empty means no restriction.
    allowed_origins: list[str] = Field(default_factory=list)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)

    class Settings:
        name = "organisations"


class ApiKey(TenantDocument):
    kind: Literal["scoped", "legacy"]
    # SHA-256 hex of the secret; the secret itself is never stored.
    key_hash: str
    # First characters of the secret, for recognising a key in a list.
    prefix: str
    label: str | None = None
    scopes: list[str] = Field(default_factory=list)
    revoked_at: datetime | None = None
    last_used_at: datetime | None = None

    class Settings:
        name = "api_keys"
        indexes = [
            IndexModel([("key_hash", ASCENDING)], unique=True),
            IndexModel([("org_id", ASCENDING), ("kind", ASCENDING), ("revoked_at", ASCENDING)]),
        ]
