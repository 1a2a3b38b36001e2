"""Shared by the insights tests: seeded messages at given local times, the rollup command, the routes."""
from __future__ import annotations

import argparse
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bson import ObjectId

from leadline.admin import AdminEnv, load
from leadline.models.chats import ChatMessage
from tests.chats.support import BRAND

SUMMARY = "/v2.0/insights/daily-summary"
SNAPSHOTS = "/v2.0/insights/pipeline-snapshots"


def local(day: date, hh: int, mm: int = 0, tz: str = "UTC") -> datetime:
    return datetime.combine(day, time(hh, mm), ZoneInfo(tz))


def today(tz: str = "UTC") -> date:
    return datetime.now(ZoneInfo(tz)).date()


def days_ago(n: int, tz: str = "UTC") -> date:
    return today(tz) - timedelta(days=n)


async def seed(org_id, at: datetime, *, direction: str = "inbound", contact_id=None, phone: str | None = None,
               channel: str = "chatapp", assistant: dict | None = None, **fields) -> ChatMessage:
    """A stored message; `assistant` is the marker the AI runtime will set on its replies (not a model field
    yet, so it is written beside the document)."""
    message = ChatMessage.new(ObjectId(org_id), channel=channel, brand_number=BRAND, contact_id=contact_id,
                              phone=phone, direction=direction,
                              status="received" if direction == "inbound" else "sent",
                              type=fields.pop("type", "text"), text=fields.pop("text", "hi"), created_at=at,
                              updated_at=at, **fields)
    await message.insert()
    if assistant is not None:
        await ChatMessage.update_one_in(message, {"_id": message.id}, {"$set": {"assistant": assistant}})
    return message


async def run_rollups(settings, org_id: str, day: str | None = None) -> dict:
    """`leadline admin run-rollups --org ORG [--date DAY]`, run in this process."""
    command = load()["run-rollups"]
    return await command.run(argparse.Namespace(org=org_id, date=day), AdminEnv(settings, None))


def record(body: dict, day: date, platform: str = "chatapp") -> dict:
    [found] = [r for r in body["data"] if r["date"] == day.isoformat() and r["platform"] == platform]
    return found


def zeros(day: date, platform: str) -> dict:
    return {"date": day.isoformat(), "platform": platform, "cost": {"totalMillidollars": 0},
            "conversations": {"count": 0, "uniqueUsers": 0, "totalMessages": 0, "userMessages": 0,
                              "assistantMessages": 0, "totalDurationSec": 0},
            "media": {"incoming": 0, "outgoing": 0, "audioSeconds": 0},
            "ai": {"toolsUsed": 0, "followUpCount": 0, "modelBreakdown": []}, "hourlyConversations": [0] * 24}
