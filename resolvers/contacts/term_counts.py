"""Per-(organisation, term) contact counts: the total of a single-term filter without counting matches.

SecantusDB counts by fetching every match (~0.02 ms each), so the counts are maintained with bulk
`$inc`s in every code path that writes a contact's `terms` (create, versioned update, tag delete).
A process dying between the contact write and the count write leaves a count off by the missed
change; `recount` rebuilds an organisation's counts from its contacts (the nightly
`recount_contact_terms` job), and the filter's window probe never trusts a count for its rows.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable

from bson import ObjectId
import pymongo
from pymongo import DeleteOne, UpdateOne
from pymongo.errors import BulkWriteError

from leadline.models.contacts import Contact, ContactTermCount

_DUPLICATE_KEY = 11000
RECOUNT_SECONDS = 600


async def _bulk(org_id: ObjectId, ops: list) -> None:
    """Unordered bulk write. Two first upserts of one term can race on the unique (org_id, term)
    index; the loser is retried once the winner's document exists, as a plain update."""
    for _ in range(3):
        if not ops:
            return
        try:
            await ContactTermCount.bulk_write_in(org_id, ops)
            return
        except BulkWriteError as exc:
            errors = exc.details.get("writeErrors", [])
            if any(e.get("code") != _DUPLICATE_KEY for e in errors):
                raise
            ops = [ops[e["index"]] for e in errors]
    raise RuntimeError("contact term counts: upserts kept colliding")


async def apply(org_id: ObjectId, added: Iterable[str] = (), removed: Iterable[str] = ()) -> None:
    """+1 for each added term, -1 for each removed one (a term in both cancels out)."""
    delta = Counter(added)
    delta.subtract(Counter(removed))
    ops = [UpdateOne({"org_id": org_id, "term": t}, {"$inc": {"total": n}}, upsert=n > 0)
           for t, n in sorted(delta.items()) if n]
    await _bulk(org_id, ops)


async def apply_diff(org_id: ObjectId, before: Iterable[str], after: Iterable[str]) -> None:
    """The count changes of one contact whose terms went from `before` to `after`."""
    old, new = set(before), set(after)
    await apply(org_id, new - old, old - new)


async def forget(org_id: ObjectId, term: str) -> None:
    """The term is gone from every contact (a deleted tag): its count goes with it."""
    await ContactTermCount.delete_one_in(org_id, {"term": term})


async def count_of(org_id: ObjectId, term: str) -> int:
    doc = await ContactTermCount.find_one_raw_in(org_id, {"term": term}, {"total": 1})
    return max(0, doc["total"]) if doc else 0


async def recount(org_id: ObjectId) -> dict[str, int]:
    """Rebuild the organisation's counts from its contacts; idempotent, and writes only what differs.

    A contact write racing the recount can leave its own change out; the next run repairs it.
    """
    # A large organisation's recount runs longer than the per-command budget (LEADLINE_DB_TIMEOUT_MS).
    with pymongo.timeout(RECOUNT_SECONDS):
        return await _recount(org_id)


async def _recount(org_id: ObjectId) -> dict[str, int]:
    grouped = await Contact.aggregate_in(org_id, [
        {"$match": {}}, {"$unwind": "$terms"}, {"$group": {"_id": "$terms", "n": {"$sum": 1}}}])
    actual = {row["_id"]: row["n"] for row in grouped}
    stored = {doc["term"]: doc for doc in await ContactTermCount.find_raw_in(org_id, {}, {"term": 1, "total": 1})}
    ops: list = [UpdateOne({"org_id": org_id, "term": t}, {"$set": {"total": n}}, upsert=True)
                 for t, n in actual.items() if stored.get(t, {}).get("total") != n]
    fixed = len(ops)
    ops += [DeleteOne({"org_id": org_id, "_id": doc["_id"]}) for t, doc in stored.items() if t not in actual]
    await _bulk(org_id, ops)
    return {"terms": len(actual), "fixed": fixed, "removed": len(ops) - fixed}
