"""Moving contacts from one lead category to another (a rename, a delete with `reassignTo`).

A category is a name matched case-insensitively, and contacts may carry another spelling of it than
the configured one (a value written before the category existed, or kept through a case-changing PUT,
which is not cascaded). The spellings present are read from the organisation's term counts (one index
range over `(org_id, term)`), then each is one indexed multi-update: contacts carrying its term
(`terms` index) get the new name and term in place (`terms.$`), or lose both, and a new `version` (so
a concurrent versioned contact update that read the old value retries instead of writing stale terms).
The term counts move by the number of contacts changed (resolvers/contacts/term_counts.py).
"""
from __future__ import annotations

from leadline.models.base import utcnow
from leadline.models.contacts import Contact, ContactTermCount
from leadline.resolvers.contacts import term_counts
from leadline.resolvers.contacts.terms import term
from leadline.resolvers.context import RequestContext
from leadline.resolvers.leads.writes import name_key

# Above every code point: the end of the range of a term prefix.
_AFTER = "\U0010ffff"


def category_term(ctx: RequestContext, name: str) -> str:
    return term(ctx.org_id, "lead_category", name)


async def spellings(ctx: RequestContext, name: str) -> list[str]:
    """The terms of every spelling of category `name` that contacts carry (its own spelling always first).

    A spelling whose count row a crash left missing is found again after the nightly recount."""
    own = category_term(ctx, name)
    prefix = own[:own.index("|lead_category|") + len("|lead_category|")] + "s:"
    rows = await ContactTermCount.find_raw_in(ctx, {"term": {"$gte": prefix, "$lt": prefix + _AFTER}}, {"term": 1})
    key = name_key(name)
    others = sorted(r["term"] for r in rows if r["term"] != own and name_key(r["term"][len(prefix):]) == key)
    return [own, *others]


async def contacts_in(ctx: RequestContext, name: str) -> int:
    """Contacts whose `lead_category` is `name` in any spelling (counted on the `terms` index)."""
    return sum([await Contact.count_in(ctx, {"terms": t}) for t in await spellings(ctx, name)])


async def move(ctx: RequestContext, old: str, new: str | None) -> int:
    """Contacts in category `old` (any spelling) go to `new` (None: no category); returns how many moved."""
    new_term = category_term(ctx, new) if new is not None else None
    moved = 0
    for old_term in await spellings(ctx, old):
        if old_term == new_term:
            continue
        now = utcnow()
        if new is None:
            update = {"$set": {"lead_category": None, "updated_at": now}, "$pull": {"terms": old_term},
                      "$inc": {"version": 1}}
        else:
            update = {"$set": {"lead_category": new, "terms.$": new_term, "lead_categorized": True, "updated_at": now},
                      "$inc": {"version": 1}}
        changed = (await Contact.update_many_in(ctx, {"terms": old_term}, update)).modified_count
        if changed:
            await term_counts.apply(ctx.org_id, [new_term] * changed if new_term else [], [old_term] * changed)
        moved += changed
    return moved
