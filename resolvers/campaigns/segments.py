"""Segments: named, saved contact filters (the rule language of POST /v2.0/contacts/filter) that campaign
audiences reference by id; an inactive segment cannot be used."""
from __future__ import annotations

from typing import Any

from bson import ObjectId

from leadline.models.base import utcnow
from leadline.models.campaigns import Segment
from leadline.resolvers.contacts.filters import build_filter
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.pagination import Page, page_request

MAX_NAME = 120


def _checked(ctx_org: ObjectId, name: str | None, filter: Any, *, partial: bool = False) -> dict[str, Any]:
    problems, changes = [], {}
    if name is not None or not partial:
        clean = (name or "").strip()
        if not clean or len(clean) > MAX_NAME or "\x00" in clean:
            problems.append(detail("name", "INVALID_VALUE", f"name is 1 to {MAX_NAME} characters"))
        changes["name"] = clean
    if filter is not None or not partial:
        if not isinstance(filter, dict):
            problems.append(detail("filter", "INVALID_TYPE", "filter must be an object"))
        else:
            try:
                build_filter(ctx_org, filter)
                changes["filter"] = filter
            except ApiError as err:
                problems += err.details or [detail("filter", err.code, err.message)]
    if problems:
        raise validation_error(problems)
    return changes


async def list_segments(ctx: RequestContext, page: int | None, limit: int | None) -> Page[Segment]:
    req = page_request(page, limit, default=50, maximum=100)
    total = await Segment.count_in(ctx)
    items = await Segment.find_in(ctx).sort("-created_at").skip(req.skip).limit(req.limit).to_list()
    return Page(items, req.page, req.limit, total)


async def create_segment(ctx: RequestContext, name: str | None, filter: Any, is_active: bool | None) -> Segment:
    segment = Segment.new(ctx, **_checked(ctx.org_id, name, filter), is_active=True if is_active is None else is_active)
    await segment.insert()
    return segment


async def get_segment(ctx: RequestContext, segment_id: str) -> Segment:
    segment = await Segment.get_in(ctx, segment_id)
    if segment is None:
        raise ApiError("SEGMENT_NOT_FOUND", "No segment with this id in this organisation.")
    return segment


async def update_segment(ctx: RequestContext, segment_id: str, name: str | None, filter: Any,
                         is_active: bool | None) -> Segment:
    segment = await get_segment(ctx, segment_id)
    changes = _checked(ctx.org_id, name, filter, partial=True)
    if is_active is not None:
        changes["is_active"] = is_active
    for key, value in changes.items():
        setattr(segment, key, value)
    segment.updated_at = utcnow()
    await segment.save()
    return segment


async def delete_segment(ctx: RequestContext, segment_id: str) -> Segment:
    segment = await get_segment(ctx, segment_id)
    await segment.delete()
    return segment
