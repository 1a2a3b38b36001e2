"""Pipeline snapshots: the lead pipeline at the end of one organisation-local day.

- `stageCounts`: contacts per `lead_category` when the snapshot is taken (every configured category,
  zero included, counting the contacts that carry another spelling of it, and any other value contacts
  still carry, e.g. a category a PUT dropped);
- `neverCategorized`: contacts with no category that never had one (`Contact.lead_categorized`);
- `newContacts`: contacts created that day, by platform (the contact's `platform`, else its `source`,
  when one of chatapp, photoapp, pageapp; otherwise `other`);
- `optOuts`: contacts who opted out that day: distinct contacts with a `contact.updated` event of that
  day that changed `optedOut` to true (keyword STOP, or a person through the API).

The first two measure a moment, the last two a day. A run during the day, or the first run after it,
computes everything from current data; a stored snapshot taken after its day had ended keeps its
moment counts on a re-run (they cannot be measured again later) and recomputes the day counts.
"""
from __future__ import annotations

from datetime import date, datetime, time, timezone
from typing import Any

import pymongo

from leadline.models.base import OrgRef, org_of, utcnow
from leadline.models.contacts import Contact
from leadline.models.events import DomainEvent
from leadline.models.insights import PLATFORMS, PipelineSnapshot, StageCount
from leadline.models.leads import LeadSegmentation
from leadline.resolvers.insights.days import bounds
from leadline.resolvers.leads.writes import name_key

SNAPSHOT_SECONDS = 600


def _platform_of() -> dict[str, Any]:
    return {"$switch": {"branches": [{"case": {"$in": ["$platform", list(PLATFORMS)]}, "then": "$platform"},
                                     {"case": {"$in": ["$source", list(PLATFORMS)]}, "then": "$source"}],
                        "default": "other"}}


def contacts_pipeline(start: datetime, end: datetime) -> list[dict[str, Any]]:
    return [
        {"$match": {}},
        {"$project": {"_id": 0, "lead_category": 1, "lead_categorized": 1, "created_at": 1, "platform": 1, "source": 1}},
        {"$facet": {
            "stages": [{"$match": {"lead_category": {"$ne": None}}},
                       {"$group": {"_id": "$lead_category", "n": {"$sum": 1}}}],
            "never": [{"$match": {"lead_category": None, "lead_categorized": {"$ne": True}}}, {"$count": "n"}],
            "new": [{"$match": {"created_at": {"$gte": start, "$lt": end}}},
                    {"$group": {"_id": _platform_of(), "n": {"$sum": 1}}}],
        }},
    ]


def opt_outs_pipeline(start: datetime, end: datetime) -> list[dict[str, Any]]:
    return [
        {"$match": {"kind": "contact.updated", "created_at": {"$gte": start, "$lt": end}}},
        {"$match": {"payload.changed": "optedOut", "payload.optedOut": True}},
        {"$group": {"_id": "$payload.contactId"}},
        {"$count": "n"},
    ]


def _count(rows: list[dict[str, Any]]) -> int:
    return rows[0]["n"] if rows else 0


async def take(org: OrgRef, tz: str, day: date) -> PipelineSnapshot:
    """Compute and store the day's snapshot (rewriting the same document on a re-run)."""
    org_id = org_of(org)
    start, end = bounds(day, tz)
    with pymongo.timeout(SNAPSHOT_SECONDS):
        contacts = (await Contact.aggregate_in(org_id, contacts_pipeline(start, end)) or [{}])[0]
        opt_outs = _count(await DomainEvent.aggregate_in(org_id, opt_outs_pipeline(start, end)))
    config = await LeadSegmentation.find_one_raw_in(org_id, {}, {"categories.name": 1}) or {}
    configured = [c["name"] for c in config.get("categories", []) if c.get("name")]
    # Categories are names matched case-insensitively: another spelling counts in the configured category.
    canonical = {name_key(n): n for n in configured}
    found: dict[str, int] = {}
    for row in contacts.get("stages", []):
        if isinstance(row["_id"], str):
            name = canonical.get(name_key(row["_id"]), row["_id"])
            found[name] = found.get(name, 0) + row["n"]
    names = [*configured, *sorted(n for n in found if n not in configured)]
    stages = [StageCount(name=n, count=found.get(n, 0)) for n in names]
    never = _count(contacts.get("never", []))
    new_contacts = {p: 0 for p in PLATFORMS}
    for row in contacts.get("new", []):
        new_contacts[row["_id"]] = row["n"]

    existing = await PipelineSnapshot.find_one_in(org_id, {"date": day.isoformat()})
    taken_at = utcnow()
    if existing is not None and existing.taken_at >= end:
        stages, never, taken_at = existing.stages, existing.neverCategorized, existing.taken_at
    snapshot = PipelineSnapshot.new(org_id, date=day.isoformat(), day=datetime.combine(day, time(0), timezone.utc),
                                    stages=stages, newContacts=new_contacts, optOuts=opt_outs, neverCategorized=never,
                                    taken_at=taken_at)
    fields = snapshot.model_dump(include={"day", "stages", "newContacts", "optOuts", "neverCategorized", "taken_at"})
    now = utcnow()
    await PipelineSnapshot.update_one_in(org_id, {"date": snapshot.date},
                                         {"$set": {**fields, "updated_at": now}, "$setOnInsert": {"created_at": now}},
                                         upsert=True)
    return snapshot


async def stored(org: OrgRef, start: date, end: date) -> list[PipelineSnapshot]:
    """The snapshots of [start, end], by date (a day without one is absent)."""
    found = await PipelineSnapshot.find_in(org, {"date": {"$gte": start.isoformat(), "$lte": end.isoformat()}}).to_list()
    return sorted(found, key=lambda s: s.date)
