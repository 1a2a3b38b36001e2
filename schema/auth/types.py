"""API key types: what an owner may see of a key (never its secret)."""
from __future__ import annotations

from datetime import datetime

import strawberry

from leadline.models.auth import ApiKey


@strawberry.type
class ApiKeyRow:
    key_id: str
    kind: str
    label: str | None
    prefix: str
    scopes: list[str]
    created_at: datetime
    last_used_at: datetime | None
    revoked: bool

    @classmethod
    def from_domain(cls, key: ApiKey) -> "ApiKeyRow":
        return cls(key_id=str(key.id), kind=key.kind, label=key.label, prefix=key.prefix,
                   scopes=list(key.scopes) if key.kind == "scoped" else ["*"], created_at=key.created_at,
                   last_used_at=key.last_used_at, revoked=key.revoked_at is not None)
