"""The scope catalogue (spec: Authentication → Scope table) and the one scope check."""
from __future__ import annotations

from typing import TYPE_CHECKING

from leadline.resolvers.errors import ApiError

if TYPE_CHECKING:
    from leadline.resolvers.context import RequestContext

SCOPES: frozenset[str] = frozenset({
    "contacts:read", "contacts:write",
    "config:read", "config:write",
    "messages:send", "messages:read",
    "chats:read",
    "templates:read", "templates:write",
    "campaigns:read", "campaigns:write",
    "assistants:read", "assistants:write",
    "tools:read", "tools:write",
    "catalogs:read", "catalogs:write",
    "channels:read",
    "insights:read",
    "billing:read",
    "integrations:storeapp", "integrations:crmapp",
    "teams:read", "teams:write",
    "agents:read",
    "assignments:read", "assignments:write",
    "conversations:read", "conversations:write",
})
FULL_ACCESS = "*"


def parse_scopes(raw: str | list[str]) -> list[str]:
    """Validate a scope list given as text or list; unknown scopes are refused, not ignored."""
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    scopes = sorted({item.strip() for item in items if item.strip()})
    if not scopes:
        raise ValueError("a scoped key needs at least one scope")
    unknown = [s for s in scopes if s != FULL_ACCESS and s not in SCOPES]
    if unknown:
        raise ValueError(f"unknown scopes: {', '.join(unknown)}")
    return scopes


def require_scope(ctx: "RequestContext", scope: str) -> None:
    """Default-deny: a scoped key passes only with the exact scope or `*`; legacy keys always pass."""
    key = ctx.key
    if key is not None and (key.full_access or scope in key.scopes):
        return
    raise ApiError(
        "INSUFFICIENT_SCOPE",
        f"This API key lacks the '{scope}' scope required for this endpoint.",
        required_scope=scope,
    )
