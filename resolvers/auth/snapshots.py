"""What a request knows of its organisation and API key: immutable snapshots, cached with the key."""
from __future__ import annotations

from dataclasses import dataclass

from bson import ObjectId


@dataclass(frozen=True)
class OrgSnapshot:
    """What a request needs of its organisation, cached with the key."""

    id: ObjectId
    name: str
    plan: str
    timezone: str
    is_active: bool
    allowed_origins: tuple[str, ...]


@dataclass(frozen=True)
class KeySnapshot:
    id: ObjectId
    kind: str  # "scoped" | "legacy"
    scopes: frozenset[str]
    label: str | None

    @property
    def full_access(self) -> bool:
        return self.kind == "legacy" or "*" in self.scopes
