"""Listing and fetching an organisation's templates, and their count for the `max_templates` limit."""
from __future__ import annotations

import re
from dataclasses import dataclass

from bson import ObjectId

from leadline.models.templates import CATEGORIES, STATUSES, MessageTemplate
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.pagination import one_of
from leadline.resolvers.billing.usage import usage_counter

_DIGITS = re.compile(r"^\d{1,32}$")


@dataclass(frozen=True)
class TemplateList:
    items: list[MessageTemplate]
    total: int


@dataclass(frozen=True)
class TemplateDetail:
    template: MessageTemplate
    group_id: ObjectId
    group_name: str


async def list_templates(ctx: RequestContext, status: str | None, category: str | None) -> TemplateList:
    filt: dict = {}
    if status:
        filt["status"] = one_of(status, STATUSES, "status", upper=True)
    if category:
        filt["category"] = one_of(category, CATEGORIES, "category", upper=True)
    items = await MessageTemplate.find_in(ctx, filt).sort("-created_at").to_list()
    return TemplateList(items, len(items))


async def get_template(ctx: RequestContext, raw_id: str) -> TemplateDetail:
    """By the 24-hex `_id` or the all-digit provider `templateId`."""
    raw_id = (raw_id or "").strip()
    lookups = []
    if _DIGITS.match(raw_id):
        lookups.append({"template_id": raw_id})
    if len(raw_id) == 24 and all(c in "0123456789abcdefABCDEF" for c in raw_id):
        lookups.append({"_id": ObjectId(raw_id)})  # a 24-digit id may be either kind: both are tried
    if not lookups:
        raise ApiError("INVALID_TEMPLATE_ID", "The id must be a 24-character hexadecimal _id or a numeric templateId.")
    template = None
    for lookup in lookups:
        template = await MessageTemplate.find_one_in(ctx, lookup)
        if template is not None:
            break
    if template is None:
        raise ApiError("TEMPLATE_NOT_FOUND", f"No template with id {raw_id}.")
    return TemplateDetail(template, template.group_id or template.id, template.name)


@usage_counter("max_templates")
async def count_templates(org_id: ObjectId, timezone: str = "UTC") -> int:
    return await MessageTemplate.count_in(org_id)
