"""The per-organisation contact counter: max_contacts usage and creation order without counting.

Counting 100,000 contacts per insert is far too slow on the embedded database, so the count is
maintained here with atomic `$inc`s in the same code path that inserts or deletes a contact.
"""
from __future__ import annotations

from bson import ObjectId
from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

from leadline.models.contacts import ContactCounter
from leadline.resolvers.errors import ApiError
from leadline.resolvers.billing.usage import usage_counter


async def reserve_slot(org_id: ObjectId, limit: int | None) -> int:
    """Take one contact slot under the plan limit and return the new contact's `seq`.

    One conditional `$inc` is the check and the reservation at once, so two concurrent creates can
    never both take the last slot. LIMIT_EXCEEDED when the organisation is at its limit.
    """
    guard = {} if limit is None else {"total": {"$lt": limit}}
    for _ in range(3):
        updated = await ContactCounter.find_one_and_update_in(
            org_id, guard, {"$inc": {"total": 1, "seq": 1}},
            projection={"seq": 1}, return_document=ReturnDocument.AFTER)
        if updated is not None:
            return updated["seq"]
        current = await ContactCounter.find_one_raw_in(org_id, {}, {"total": 1})
        if current is not None and limit is not None and current["total"] >= limit:
            raise ApiError("LIMIT_EXCEEDED", f"Plan limit reached for max_contacts: {current['total']} of {limit} used.",
                           limitKey="max_contacts", current=current["total"], limit=limit)
        if limit is not None and limit < 1:
            raise ApiError("LIMIT_EXCEEDED", "Plan limit reached for max_contacts: 0 of 0 used.",
                           limitKey="max_contacts", current=0, limit=limit)
        if current is not None:
            continue  # the counter was created concurrently and has room: take the conditional path again
        try:
            await ContactCounter.new(org_id, total=1, seq=1).insert()
            return 1
        except DuplicateKeyError:
            continue  # created concurrently: take the conditional path again
    raise ApiError("INTERNAL_SERVER_ERROR", "Could not reserve a contact slot; try again.")


async def reserve_slots(org_id: ObjectId, n: int, limit: int | None) -> list[int]:
    """Take up to `n` slots under the plan limit in one conditional `$inc` when they all fit; the new
    contacts' seqs. Near the limit, slots are taken one by one until it refuses (fewer seqs back)."""
    if n <= 0:
        return []
    guard = {} if limit is None else {"total": {"$lte": limit - n}}
    for _ in range(2):
        updated = await ContactCounter.find_one_and_update_in(
            org_id, guard, {"$inc": {"total": n, "seq": n}}, projection={"seq": 1},
            return_document=ReturnDocument.AFTER)
        if updated is not None:
            return list(range(updated["seq"] - n + 1, updated["seq"] + 1))
        if (limit is not None and n > limit) or await ContactCounter.find_one_raw_in(org_id, {}, {"_id": 1}):
            break  # near the limit: one at a time below
        try:  # the organisation's first contacts: the counter starts with them
            await ContactCounter.new(org_id, total=n, seq=n).insert()
            return list(range(1, n + 1))
        except DuplicateKeyError:
            continue  # created concurrently: take the conditional path again
    seqs = []
    for _ in range(n):
        try:
            seqs.append(await reserve_slot(org_id, limit))
        except ApiError as err:
            if err.code != "LIMIT_EXCEEDED":
                raise
            break
    return seqs


async def release_slot(org_id: ObjectId, n: int = 1) -> None:
    """Give back reserved slots whose inserts did not happen (their `seq`s stay unused)."""
    await ContactCounter.update_one_in(org_id, {}, {"$inc": {"total": -n}})


async def add_bulk(org_id: ObjectId, n: int) -> int:
    """Reserve `n` seqs at once without a limit check (bulk loading); returns the first."""
    updated = await ContactCounter.find_one_and_update_in(
        org_id, {}, {"$inc": {"total": n, "seq": n}}, upsert=True,
        projection={"seq": 1}, return_document=ReturnDocument.AFTER)
    return updated["seq"] - n + 1


async def snapshot(org_id: ObjectId) -> tuple[int, int]:
    """(count, last seq) of the organisation; (0, 0) before its first contact."""
    doc = await ContactCounter.find_one_raw_in(org_id, {}, {"total": 1, "seq": 1})
    return (doc["total"], doc["seq"]) if doc else (0, 0)


@usage_counter("max_contacts")
async def count_contacts(org_id: ObjectId, timezone: str = "UTC") -> int:
    return (await snapshot(org_id))[0]
