"""Shared by the assistants tests: bodies, creating assistants, connected channels."""
from __future__ import annotations

from typing import Any

from leadline.resolvers.channels.admin import connect_channel

CHAT_A, CHAT_B = "15550001111", "15550002222"
PHOTO, PAGE = "acme.photo", "acme-page-1"


def body(**overrides: Any) -> dict[str, Any]:
    return {"name": "Sales bot", "provider": "openai", "model": "gpt-4o-mini", **overrides}


async def create(api, key: str, **overrides: Any) -> dict[str, Any]:
    resp = await api.post("/v2.0/assistants", key, json=body(**overrides))
    assert resp.status == 201, resp.body
    return resp.body["data"]


async def connect(tenant, platform: str, number: str) -> None:
    await connect_channel(tenant.org_id, platform, number, "Acme")


async def history(api, key: str, model_id: str) -> list[dict[str, Any]]:
    resp = await api.get(f"/v2.0/assistants/{model_id}/history", key)
    assert resp.status == 200, resp.body
    return resp.body["data"]
