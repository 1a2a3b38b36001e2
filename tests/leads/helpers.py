"""Small builders shared by the lead segmentation tests (all through HTTP)."""
from __future__ import annotations

from typing import Any

SEGMENTATION = "/v2.0/leads/segmentation"
CATEGORIES = "/v2.0/leads/categories"
FOLLOWUPS = "/v2.0/leads/followups"
INSIGHTS = "/v2.0/leads/insights"


def followup(delay: float = 3600, prompt: str = "Check in", active: bool = True) -> dict[str, Any]:
    return {"delay": delay, "prompt": prompt, "active": active}


async def make_category(api, key: str, name: str, **body) -> dict:
    resp = await api.post(CATEGORIES, key, json={"name": name, "description": f"{name} leads", **body})
    assert resp.status == 201, resp.body
    return resp.body["data"]


async def make_insight(api, key: str, insight_key: str, value_type: str | None = None, **body) -> dict:
    payload = {"key": insight_key, "name": insight_key.title(), "description": f"the {insight_key}", **body}
    if value_type:
        payload["valueType"] = value_type
    resp = await api.post(INSIGHTS, key, json=payload)
    assert resp.status == 201, resp.body
    return resp.body["data"]


async def contact(api, key: str, phone: str, **body) -> dict:
    resp = await api.post("/v2.0/contacts", key, json={"phone": phone, **body})
    assert resp.status in (200, 201), resp.body
    return resp.body["data"]


async def by_phone(api, key: str, phone: str) -> dict:
    resp = await api.post("/v2.0/contacts/phone", key, json={"phone": phone})
    assert resp.status == 200, resp.body
    return resp.body["data"]


class KeyRing:
    """Fresh scoped keys as the plan's per-second rate limit needs (Free allows 5 requests/s per key)."""

    def __init__(self, tenant, scopes: str = "*", per_key: int = 4) -> None:
        self.tenant, self.scopes, self.per_key = tenant, scopes, per_key
        self.current: str | None = None
        self.used = 0

    async def next(self) -> str:
        if self.current is None or self.used >= self.per_key:
            self.current, self.used = await self.tenant.key(self.scopes), 0
        self.used += 1
        return self.current
