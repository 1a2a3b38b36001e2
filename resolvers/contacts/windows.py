"""The fast path of POST /v2.0/contacts/filter: one exact clause with one value, i.e. one term.

The total is the term's maintained count (resolvers/contacts/term_counts.py). The page is read by
probing `seq` windows downward from the newest contact on the (org_id, terms, seq) index: each window
is an IXSCAN that fetches only its own matches (~0.02 ms each). SecantusDB cannot serve a sort from
the index (asking it to is pathological), so each window is sorted here; windows never overlap and
are read newest first, so the concatenation is already in `seq` descending order, as the
aggregation path sorts.
"""
from __future__ import annotations

import math
from typing import Any

from bson import ObjectId

from leadline.models.contacts import Contact
from leadline.resolvers.contacts import counters, term_counts
from leadline.resolvers.contacts.rows import contacts_from_raw

# Page 1 reads about this many times the page size; a window that comes back short doubles it.
OVERSHOOT = 1.5
# Windows cost about three times as much per match as the aggregation's single pass (bench/contacts.py:
# 1,000 matches through windows ~100 ms, 2,000 through one pass ~73 ms), so they only pay while a page
# needs fewer than about a third of the matches; deeper pages take the single pass.
PROBE_SHARE = 1 / 3


def worth_probing(need: int, count: int) -> bool:
    """Whether windows beat one pass over all `count` matches for a page needing `need` of them."""
    return count == 0 or need <= count * PROBE_SHARE


def single_term(query: dict[str, Any]) -> str | None:
    """The term of a built filter that is exactly `{terms: <one term>, org_id}`, else None."""
    if set(query) == {"terms", "org_id"} and isinstance(query["terms"], str):
        return query["terms"]
    return None


def _span(want: int, density: float, factor: float, high: int) -> int:
    """How many seqs to cover to expect `factor * want` matches at this density."""
    if density <= 0:
        return high
    return max(1, math.ceil(factor * want / density))


async def probe(org_id: ObjectId, term: str, need: int, count: int, last_seq: int) -> tuple[list[dict], bool]:
    """The newest `need` (or more) contacts carrying `term`, newest first, as raw documents, and
    whether the probe reached seq 0 (then the list holds every match)."""
    density = min(1.0, count / last_seq) if last_seq else 0.0
    found: list[dict] = []
    high, factor = last_seq + 1, OVERSHOOT  # windows are [low, high)
    while high > 0 and len(found) < need:
        want = need - len(found)
        low = max(0, high - _span(want, density, factor, high))
        window = await Contact.find_raw_in(org_id, {"terms": term, "seq": {"$gte": low, "$lt": high}})
        window.sort(key=lambda doc: doc["seq"], reverse=True)
        found.extend(window)
        if len(window) < want:
            factor *= 2
        high = low
    return found, high <= 0


async def term_page(org_id: ObjectId, term: str, skip: int, limit: int,
                    count: int | None = None) -> tuple[list[Contact], int]:
    """(the page's contacts, total). The total is the maintained count, except when the probe read
    every match (a last page or past the end): then it is the exact number read, so a drifted
    count cannot contradict the rows shown."""
    if count is None:
        count = await term_counts.count_of(org_id, term)
    _, last_seq = await counters.snapshot(org_id)
    found, exhausted = await probe(org_id, term, skip + limit, count, last_seq)
    total = len(found) if exhausted else max(count, len(found))
    return contacts_from_raw(found[skip:skip + limit]), total
