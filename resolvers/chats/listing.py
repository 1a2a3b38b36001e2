"""GET /v2.0/chats/conversations: the inbox rows, most recently active first.

Without `search` the read is `{org_id[, is_archived]}` sorted by `last_message_at` (an index prefix
each), with `skip`/`limit`. `search` (case-insensitive, contact name or phone) cannot use an index in
SecantusDB (a regular expression is a collection scan), so it is bounded instead: it looks through
the SEARCH_SCAN most recently active rows of that read, projected to three fields, and pages the
matches; the total counts the matches among them.
"""
from __future__ import annotations

from leadline.models.chats import Conversation
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import detail, validation_error
from leadline.resolvers.pagination import Page, page_request
from leadline.resolvers.phones import digits_only

DEFAULT_LIMIT, MAX_LIMIT = 20, 100
SEARCH_SCAN = 5000
MAX_SEARCH = 100
SORT = [("last_message_at", -1), ("_id", -1)]


def _matches(row: dict, needle: str, digits: str) -> bool:
    name = (row.get("contact_name") or "").casefold()
    return needle in name or bool(digits and digits in (row.get("phone") or ""))


async def _search(ctx: RequestContext, filt: dict, needle: str, skip: int,
                  limit: int) -> tuple[list[Conversation], int]:
    digits = digits_only(needle) if digits_only(needle).isdigit() else ""
    rows = await Conversation.find_raw_in(ctx, filt, {"_id": 1, "contact_name": 1, "phone": 1}, sort=SORT,
                                          limit=SEARCH_SCAN)
    ids = [row["_id"] for row in rows if _matches(row, needle.casefold(), digits)]
    page_ids = ids[skip:skip + limit]
    rows = await Conversation.get_many_in(ctx, page_ids)
    order = {row_id: i for i, row_id in enumerate(page_ids)}
    return sorted(rows, key=lambda r: order[r.id]), len(ids)


async def list_conversations(ctx: RequestContext, *, archived: bool | None, search: str | None, page: int | None,
                             limit: int | None) -> Page[Conversation]:
    req = page_request(page, limit, default=DEFAULT_LIMIT, maximum=MAX_LIMIT)
    needle = (search or "").strip()
    if len(needle) > MAX_SEARCH:
        raise validation_error([detail("search", "TOO_LONG", f"search is at most {MAX_SEARCH} characters")])
    filt: dict = {} if archived is None else {"is_archived": archived}
    if needle:
        rows, total = await _search(ctx, filt, needle, req.skip, req.limit)
    else:
        total = await Conversation.count_in(ctx, filt)
        rows = await Conversation.find_in(ctx, filt).sort(SORT).skip(req.skip).limit(req.limit).to_list()
    return Page(rows, req.page, req.limit, total)
