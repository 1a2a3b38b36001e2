"""Reading tools: one by id, the filtered list, history, the schema catalogue, and the max_tools usage.

An organisation holds at most a few hundred tools (max_tools): the list reads the filterable fields
of all of them through the (org_id, created_at) index, filters and pages in Python, then reads the
page's documents by id (`get_many_in`: batched `_id $in` reads through the `_id` index).
"""
from __future__ import annotations

from bson import ObjectId

from leadline.models.tools import Tool, ToolVersion
from leadline.resolvers.billing.usage import usage_counter
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.pagination import Page, one_of, page_request
from leadline.resolvers.tools import versioning
from leadline.resolvers.tools.definitions import TOOL_TYPES, catalogue, type_schema

LIST_DEFAULT, LIST_MAX = 20, 100


def not_found() -> ApiError:
    return ApiError("TOOL_NOT_FOUND", "No tool with this id.")


async def get_tool(ctx: RequestContext, tool_id: str | None) -> Tool:
    tool = await Tool.get_in(ctx, tool_id) if isinstance(tool_id, str) and len(tool_id) == 24 else None
    if tool is None:
        raise not_found()
    return tool


async def list_tools(ctx: RequestContext, tool_type: str | None, is_active: bool | None, tag: str | None,
                     name: str | None, page: int | None, limit: int | None) -> Page[Tool]:
    req = page_request(page, limit, default=LIST_DEFAULT, maximum=LIST_MAX)
    one_of(tool_type, TOOL_TYPES, "toolType")
    if tag is not None and not (len(tag) == 24 and ObjectId.is_valid(tag)):
        raise validation_error([detail("tag", "INVALID_VALUE", "tag must be a 24-character hexadecimal tool tag id")])
    needle = name.strip().lower() if name else None
    rows = await Tool.find_raw_in(ctx, {}, {"_id": 1, "name": 1, "tool_type": 1, "is_active": 1, "tags": 1},
                                  sort=[("created_at", -1)])
    matching = [r["_id"] for r in rows
                if (tool_type is None or r["tool_type"] == tool_type)
                and (is_active is None or r["is_active"] == is_active)
                and (tag is None or ObjectId(tag) in r.get("tags", []))
                and (needle is None or needle in r["name"].lower())]
    ids = matching[req.skip:req.skip + req.limit]
    found = {t.id: t for t in await Tool.get_many_in(ctx, ids)}  # IN_BATCH ids per read
    return Page([found[i] for i in ids if i in found], req.page, req.limit, len(matching))


async def history(ctx: RequestContext, tool_id: str) -> list[ToolVersion]:
    tool = await get_tool(ctx, tool_id)
    return await versioning.entries(ctx, ToolVersion, "tool_id", tool.id)


def schema(tool_type: str | None) -> dict:
    if tool_type is None:
        return catalogue()
    return type_schema(one_of(tool_type, TOOL_TYPES, "type"))


@usage_counter("max_tools")
async def count_tools(org_id, timezone: str = "UTC") -> int:
    return await Tool.count_in(org_id)
