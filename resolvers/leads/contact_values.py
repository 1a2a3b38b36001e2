"""A contact's lead fields as written through the API (POST /v2.0/contacts): checked, coerced, locked.

- `lead_category` must name an existing category (any case) and is stored under its canonical name;
  anything else is 400 VALIDATION_ERROR, detail code UNKNOWN_CATEGORY. An empty value clears it.
- `lead_segments` values whose key is an insight's are coerced by its `valueType` (`number` → a number,
  `date` → the UTC-midnight timestamp `YYYY-MM-DDT00:00:00.000Z`, `array` → strings, `text` → a
  string); one that does not fit is 400 VALIDATION_ERROR (detail code INVALID_VALUE). Keys without an
  insight stay free-form (the JSON limits still apply), as before insights existed.
- A value a person writes is locked against AI overwrite: `Contact.lead_locks` lists the locked fields
  (`lead_category`, `lead_segments.<key>`). Clearing a value (empty category, null segment) releases
  its lock, which is how a person lets the AI fill it again. `lead_categorized` records that the
  contact has had a category (the snapshots' `neverCategorized`).
"""
from __future__ import annotations

import re
from datetime import date, datetime, timezone
from typing import Any

from leadline.models.contacts import Contact
from leadline.models.leads import LeadInsight
from leadline.resolvers.contacts.values import Invalid as _Invalid, number_value, text_value
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import detail, validation_error
from leadline.resolvers.json_limits import clip
from leadline.resolvers.leads import store
from leadline.resolvers.leads.writes import name_key

CATEGORY_LOCK = "lead_category"
MAX_MEMBERS, MAX_MEMBER = 100, 500
_SPLIT = re.compile(r"[,|;]")




def segment_lock(key: str) -> str:
    return f"lead_segments.{key}"


def _date(value: Any) -> str:
    """A calendar date (`YYYY-MM-DD`, or the UTC date of an ISO 8601 date-time) at UTC midnight."""
    if not isinstance(value, str) or not value.strip():
        raise _Invalid("must be a date (YYYY-MM-DD)")
    text = value.strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
        else:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
            day = (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).astimezone(timezone.utc).date()
    except (ValueError, OverflowError):  # OverflowError: a moment whose UTC date is before year 1 or after 9999
        raise _Invalid("must be a date (YYYY-MM-DD)") from None
    return f"{day.isoformat()}T00:00:00.000Z"


def _array(value: Any) -> list[str]:
    members = _SPLIT.split(value) if isinstance(value, str) else value
    if not isinstance(members, list):
        raise _Invalid("must be an array of strings")
    out: list[str] = []
    for member in members:
        if isinstance(member, bool) or not isinstance(member, (str, int, float)):
            raise _Invalid("must be an array of strings")
        text = str(member).strip()
        if len(text) > MAX_MEMBER:
            raise _Invalid(f"members are at most {MAX_MEMBER} characters")
        if text and text not in out:
            out.append(text)
    if len(out) > MAX_MEMBERS:
        raise _Invalid(f"holds at most {MAX_MEMBERS} members")
    return out


COERCE = {"text": text_value, "number": number_value, "date": _date, "array": _array}


def _coerce_segments(segments: dict[str, Any], insights: dict[str, LeadInsight]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    problems = []
    for key, value in segments.items():
        insight = insights.get(key)
        if value is None or insight is None:
            out[key] = value
            continue
        try:
            out[key] = COERCE.get(insight.valueType, text_value)(value)
        except _Invalid as exc:
            problems.append(detail(f"lead_segments.{clip(key)}", "INVALID_VALUE",
                                   f"lead_segments.{clip(key)} ({insight.valueType}) {exc}"))
    if problems:
        raise validation_error(problems)
    return out


async def check(ctx: RequestContext, changes: dict[str, Any],
                segments: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """`changes` with `lead_category` made canonical, and `segments` coerced; one read of the configuration."""
    config = await store.read(ctx)
    categories = config.categories if config else []
    category = changes.get("lead_category")
    problems = []
    if category is not None:
        match = next((c for c in categories if c.name_key == name_key(category)), None)
        if match is None:
            problems.append(detail("lead_category", "UNKNOWN_CATEGORY",
                                   f"'{clip(category)}' is not a lead category of this organisation; create it "
                                   "first (POST /v2.0/leads/categories)"))
        else:
            changes = {**changes, "lead_category": match.name}
    if problems:
        raise validation_error(problems)
    if segments is not None:
        segments = _coerce_segments(segments, {i.key: i for i in (config.audienceSegments if config else [])})
    return changes, segments


async def lock(ctx: RequestContext, contact: Contact, changes: dict[str, Any], segments: dict[str, Any] | None) -> None:
    """Mark the lead values this write set as set by a person, and release the locks of those it cleared."""
    add, release = [], []
    if "lead_category" in changes:
        (add if changes["lead_category"] is not None else release).append(CATEGORY_LOCK)
    for key, value in (segments or {}).items():
        (add if value is not None else release).append(segment_lock(key))
    categorized = changes.get("lead_category") is not None
    if add or categorized:
        update: dict[str, Any] = {}
        if add:
            update["$addToSet"] = {"lead_locks": {"$each": add}}
        if categorized:
            update["$set"] = {"lead_categorized": True}
        await Contact.update_one_in(ctx, {"_id": contact.id}, update)
    if release:
        await Contact.update_one_in(ctx, {"_id": contact.id}, {"$pull": {"lead_locks": {"$in": release}}})
    contact.lead_locks = [k for k in dict.fromkeys([*contact.lead_locks, *add]) if k not in release]
    contact.lead_categorized = contact.lead_categorized or categorized
