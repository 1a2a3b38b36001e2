"""Daily summaries: one organisation-local day's chat messages, counted per platform in the database.

One aggregation over the day's index range of `chat_messages` (`(org_id, created_at)`): a projection
keeps what is counted, then a `$facet` groups it four ways (per conversation, per message, per local
hour, per AI model). What each counter means is in docs/insights.md. The AI runtime fills the
assistant counters by marking its outbound messages `assistant: {model, toolRuns, followUp}`.
"""
from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pymongo
from bson import Decimal128, ObjectId
from pymongo import UpdateOne

from leadline.models.base import OrgRef, org_of, utcnow
from leadline.models.chats import ChatMessage
from leadline.models.insights import PLATFORMS, DailySummary, ModelCount, SummaryCounts
from leadline.resolvers.insights.days import bounds

# A large organisation's day can take longer than the per-command budget (LEADLINE_DB_TIMEOUT_MS).
ROLLUP_SECONDS = 600


def _millidollars(total: Any) -> int:
    """The day's cost in USD to whole millidollars, half up (floating noise below a micro-dollar is dropped)."""
    value = total.to_decimal() if isinstance(total, Decimal128) else Decimal(repr(float(total or 0)))
    return int((value * 1000).quantize(Decimal("0.001")).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _set(path: str) -> dict[str, Any]:
    """True when the grouped key field holds a value (missing and null alike are unset)."""
    return {"$ne": [{"$ifNull": [path, None]}, None]}


def _if(condition: dict[str, Any], value: Any) -> dict[str, Any]:
    return {"$cond": [condition, value, 0]}


# Who a message is with: its contact, else the phone, else the BSUID (a message without any has no conversation).
_WHO = {"$ifNull": ["$_id.c", {"$ifNull": ["$_id.p", {"$ifNull": ["$_id.b", None]}]}]}


def pipeline(start, end, tz: str) -> list[dict[str, Any]]:
    """SecantusDB evaluates expressions per document in Python, so the first grouping of each branch keys
    on plain field paths only; the conditions (inbound, by an assistant, in USD, ...) are evaluated on the
    grouped rows, a fraction of the messages."""
    inbound = {"$eq": ["$_id.d", "inbound"]}
    outbound = {"$eq": ["$_id.d", "outbound"]}
    media = _set("$_id.mt")
    by_assistant = {"$and": [outbound, _set("$_id.am")]}
    return [
        {"$match": {"created_at": {"$gte": start, "$lt": end}}},
        # Inbox-only notes are not messages exchanged with the contact.
        {"$match": {"internal": {"$ne": True}}},
        {"$facet": {
            "channels": [
                {"$group": {"_id": {"ch": "$channel", "c": "$contact_id", "p": "$phone", "b": "$bsuid",
                                    "d": "$direction", "mt": "$media.type", "am": "$assistant.model",
                                    "fu": "$assistant.followUp", "cu": "$cost.currency"},
                            "n": {"$sum": 1}, "first": {"$min": "$created_at"}, "last": {"$max": "$created_at"},
                            "cost": {"$sum": "$cost.amount"}, "tools": {"$sum": "$assistant.toolRuns"},
                            "audio": {"$sum": "$media.duration"}}},
                {"$group": {"_id": {"ch": "$_id.ch", "who": _WHO},
                            "first": {"$min": "$first"}, "last": {"$max": "$last"}, "total": {"$sum": "$n"},
                            "inbound": {"$sum": _if(inbound, "$n")},
                            "assistant": {"$sum": _if(by_assistant, "$n")},
                            "mediaIn": {"$sum": _if({"$and": [inbound, media]}, "$n")},
                            "mediaOut": {"$sum": _if({"$and": [outbound, media]}, "$n")},
                            "audio": {"$sum": _if({"$in": [{"$ifNull": ["$_id.mt", None]}, ["audio", "voice"]]},
                                                  "$audio")},
                            "cost": {"$sum": _if({"$in": [{"$ifNull": ["$_id.cu", None]}, [None, "USD", "usd"]]},
                                                 "$cost")},
                            "tools": {"$sum": _if(by_assistant, "$tools")},
                            "followUps": {"$sum": _if({"$and": [by_assistant, {"$eq": ["$_id.fu", True]}]}, "$n")}}},
                {"$group": {"_id": "$_id.ch",
                            "count": {"$sum": _if(_set("$_id.who"), 1)},
                            "uniqueUsers": {"$sum": _if({"$and": [_set("$_id.who"), {"$gt": ["$inbound", 0]}]}, 1)},
                            "durationMs": {"$sum": _if(_set("$_id.who"), {"$subtract": ["$last", "$first"]})},
                            **{f: {"$sum": f"${f}"} for f in ("total", "inbound", "assistant", "mediaIn", "mediaOut",
                                                              "audio", "cost", "tools", "followUps")}}},
            ],
            "hours": [
                {"$group": {"_id": {"ch": "$channel", "c": "$contact_id", "p": "$phone", "b": "$bsuid",
                                    "h": {"$hour": {"date": "$created_at", "timezone": tz}}}}},
                {"$group": {"_id": {"ch": "$_id.ch", "h": "$_id.h", "who": _WHO}}},
                {"$match": {"_id.who": {"$ne": None}}},
                {"$group": {"_id": {"ch": "$_id.ch", "h": "$_id.h"}, "n": {"$sum": 1}}},
            ],
            "models": [
                {"$match": {"direction": "outbound", "assistant.model": {"$ne": None}}},
                {"$group": {"_id": {"ch": "$channel", "model": "$assistant.model"}, "n": {"$sum": 1}}},
            ],
        }},
    ]


def _assemble(result: dict[str, list[dict[str, Any]]]) -> dict[str, SummaryCounts]:
    counts = {p: SummaryCounts() for p in PLATFORMS}
    for row in result.get("channels", []):
        if (c := counts.get(row["_id"])) is None:
            continue
        c.count, c.uniqueUsers, c.totalDurationSec = row["count"], row["uniqueUsers"], round(row["durationMs"] / 1000)
        c.totalMessages, c.userMessages, c.assistantMessages = row["total"], row["inbound"], row["assistant"]
        c.mediaIncoming, c.mediaOutgoing, c.audioSeconds = row["mediaIn"], row["mediaOut"], round(float(str(row["audio"])))
        c.totalMillidollars = _millidollars(row["cost"])
        c.toolsUsed, c.followUpCount = round(float(str(row["tools"]))), row["followUps"]
    for row in result.get("hours", []):
        c, hour = counts.get(row["_id"]["ch"]), row["_id"]["h"]
        if c is not None and isinstance(hour, int) and 0 <= hour < 24:
            c.hourlyConversations[hour] += row["n"]
    for row in sorted(result.get("models", []), key=lambda r: (-r["n"], str(r["_id"]["model"]))):
        if (c := counts.get(row["_id"]["ch"])) is not None:
            c.modelBreakdown.append(ModelCount(model=str(row["_id"]["model"]), messages=row["n"]))
    return counts


async def compute(org: OrgRef, tz: str, day: date) -> dict[str, SummaryCounts]:
    """The day's counters per platform, from the messages as they are now."""
    start, end = bounds(day, tz)
    with pymongo.timeout(ROLLUP_SECONDS):
        rows = await ChatMessage.aggregate_in(org, pipeline(start, end, tz))
    return _assemble(rows[0] if rows else {})


async def store(org: OrgRef, day: date, counts: dict[str, SummaryCounts]) -> int:
    """Write (or rewrite) the day's records, one per platform; returns how many."""
    org_id: ObjectId = org_of(org)
    now = utcnow()
    requests = [UpdateOne({"org_id": org_id, "date": day.isoformat(), "platform": platform},
                          {"$set": {"counts": c.model_dump(), "computed_at": now, "updated_at": now},
                           "$setOnInsert": {"created_at": now}}, upsert=True)
                for platform, c in counts.items()]
    await DailySummary.bulk_write_in(org_id, requests)
    return len(requests)


async def stored(org: OrgRef, start: date, end: date, platforms: tuple[str, ...]) -> dict[tuple[str, str], SummaryCounts]:
    """The stored records of [start, end] for these platforms, by (date, platform)."""
    # {org_id, date range} is the index's prefix; a platform beside the range would not be (filtered here).
    docs = await DailySummary.find_raw_in(org, {"date": {"$gte": start.isoformat(), "$lte": end.isoformat()}},
                                          {"date": 1, "platform": 1, "counts": 1})
    return {(d["date"], d["platform"]): SummaryCounts.model_validate(d.get("counts") or {})
            for d in docs if d["platform"] in platforms}
