"""Reading contacts: the list (index ranges on `seq`), the filter and the lookup by phone.

A filter that is one term (one exact clause, one value) takes the window probe of
resolvers/contacts/windows.py; any other filter one aggregation pass.

Pages are built from raw documents by `contacts_from_raw`: a row that does not validate, or whose
free-form values are too deep to serve (written by an older version), is logged and left out of its page
rather than failing the page for the whole organisation.
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

from leadline.models.contacts import Contact
from leadline.resolvers.context import RequestContext
from leadline.resolvers.contacts import counters, term_counts, windows
from leadline.resolvers.contacts.filters import build_filter
from leadline.resolvers.contacts.rows import contact_from_raw, contacts_from_raw  # noqa: F401
from leadline.resolvers.errors import ApiError
from leadline.resolvers.pagination import Page, PageRequest, page_request
from leadline.resolvers.phones import normalize_phone

log = logging.getLogger(__name__)
LIST_DEFAULT, LIST_MAX = 100, 100
FILTER_DEFAULT, FILTER_MAX = 50, 500
@dataclass
class SeqPage(Page[Contact]):
    """A page of the unfiltered list: `seq` ranges, so the page count comes from the last seq handed out
    (equal to `total` unless a create raced on the same phone and left a gap)."""

    last_seq: int = 0

    @property
    def pagination(self) -> dict[str, Any]:
        pages = math.ceil(self.last_seq / self.limit) if self.last_seq else 0
        return {"page": self.page, "limit": self.limit, "total": self.total, "totalPages": pages,
                "hasNext": self.page < pages}


async def _seq_page(ctx: RequestContext, page: int, limit: int) -> SeqPage:
    """Newest first. Page N is the index range (last-N*limit, last-(N-1)*limit] on (org_id, seq),
    so a deep page costs what the first one does (no skip)."""
    total, last_seq = await counters.snapshot(ctx.org_id)
    high = last_seq - (page - 1) * limit
    items: list[Contact] = []
    if high > 0:
        rows = await Contact.find_raw_in(ctx, {"seq": {"$gt": high - limit, "$lte": high}}, sort=[("seq", -1)])
        items = contacts_from_raw(rows)
    return SeqPage(items, page, limit, total, last_seq)


async def list_contacts(ctx: RequestContext, page: int | None, limit: int | None) -> Page[Contact]:
    req = page_request(page, limit, default=LIST_DEFAULT, maximum=LIST_MAX)
    return await _seq_page(ctx, req.page, req.limit)


async def filter_contacts(ctx: RequestContext, raw_filter: Any, page: int | None, limit: int | None) -> Page[Contact]:
    req = page_request(page, limit, default=FILTER_DEFAULT, maximum=FILTER_MAX)
    query = build_filter(ctx.org_id, raw_filter)
    if len(query) == 1:  # no clause: the plain list
        return await _seq_page(ctx, req.page, req.limit)
    if (term := windows.single_term(query)) is not None:
        count = await term_counts.count_of(ctx.org_id, term)
        if windows.worth_probing(req.skip + req.limit, count):
            items, total = await _term_page(ctx, term, req, count)
            return Page(items, req.page, req.limit, total)
    return await aggregate_page(ctx, query, req)


async def _term_page(ctx: RequestContext, term: str, req: PageRequest, count: int) -> tuple[list[Contact], int]:
    """windows.term_page with the page's rows built by contacts_from_raw (the total rule is the same:
    exact when the probe read every match, else the maintained count)."""
    _, last_seq = await counters.snapshot(ctx.org_id)
    found, exhausted = await windows.probe(ctx.org_id, term, req.skip + req.limit, count, last_seq)
    total = len(found) if exhausted else max(count, len(found))
    return contacts_from_raw(found[req.skip:req.skip + req.limit]), total


async def aggregate_page(ctx: RequestContext, query: dict[str, Any], req: PageRequest) -> Page[Contact]:
    """One pass over the matches gives the page and the total."""
    pipeline = [{"$match": query}, {"$facet": {
        "total": [{"$count": "n"}],
        "items": [{"$sort": {"seq": -1}}, {"$skip": req.skip}, {"$limit": req.limit}],
    }}]
    # aggregate_in keeps the `terms` clause first, where SecantusDB narrows by it.
    result = (await Contact.aggregate_in(ctx, pipeline))[0]
    total = result["total"][0]["n"] if result["total"] else 0
    return Page(contacts_from_raw(result["items"]), req.page, req.limit, total)


async def get_by_phone(ctx: RequestContext, phone: str | None, country_code: str | None,
                       default_country_code: str | None = None) -> Contact:
    if not phone or not phone.strip():
        raise ApiError("MISSING_PHONE", "phone is required.")
    normalized = normalize_phone(phone, country_code or default_country_code)
    contact = await Contact.find_one_in(ctx, {"phone": normalized})
    if contact is None:
        raise ApiError("CONTACT_NOT_FOUND", f"No contact with phone {normalized}.")
    return contact
