"""Shared by the campaign tests: bodies, contacts, waiting for a campaign to finish."""
from __future__ import annotations

from typing import Any

from tests.templates.support import BRAND

VARIABLES = {"body": [{"field": "name", "default": "friend"}, "SAVE10"],
             "buttons": [{"index": 0, "payload": "yes-please"}, {"index": 1, "params": [{"field": "city", "default": "home"}]}]}


def body(template, **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"brandNumber": BRAND, "campaignName": "Spring", "templateId": str(template.id),
                            "audience": {}, "variables": VARIABLES}
    for key, value in overrides.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


async def add_contacts(api, key: str, n: int, first: int = 2000, **fields: Any) -> list[str]:
    phones = []
    for i in range(n):
        phone = f"1415555{first + i:04d}"
        resp = await api.post("/v2.0/contacts", key, json={"phone": phone, "contactName": f"Person {i}", **fields})
        assert resp.status in (200, 201), resp.body
        phones.append(resp.body["data"]["phone"])
    return phones


async def report(api, key: str, campaign_id: str) -> dict[str, Any]:
    resp = await api.get(f"/v2.0/campaigns/{campaign_id}/report", key)
    assert resp.status == 200, resp.body
    return resp.body["data"]
