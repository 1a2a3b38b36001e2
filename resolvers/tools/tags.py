"""Tool tags: the organisation's labels for tools (GraphQL: toolTags, createToolTag, deleteToolTag).

Names are unique within the organisation, case-insensitively. Deleting a tag takes it off every tool
(one indexed multi-update; not a configuration version of those tools).
"""
from __future__ import annotations

from bson import ObjectId
from pymongo.errors import DuplicateKeyError

from leadline.models.base import utcnow
from leadline.models.tools import Tool, ToolTag
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail, validation_error

MAX_NAME = 64
MAX_TAGS = 200


def _name(value: str | None) -> str:
    name = " ".join((value or "").split())
    if not name:
        raise validation_error([detail("name", "REQUIRED", "name is required")])
    if len(name) > MAX_NAME:
        raise validation_error([detail("name", "TOO_LONG", f"name is at most {MAX_NAME} characters")])
    return name


async def list_tags(ctx: RequestContext) -> list[ToolTag]:
    tags = await ToolTag.find_in(ctx).to_list()
    return sorted(tags, key=lambda t: (t.name_key, t.name))


async def create_tag(ctx: RequestContext, name: str | None) -> ToolTag:
    clean = _name(name)
    if await ToolTag.count_in(ctx) >= MAX_TAGS:
        raise validation_error([detail("name", "TOO_MANY", f"an organisation has at most {MAX_TAGS} tool tags")])
    tag = ToolTag.new(ctx, name=clean, name_key=clean.lower())
    try:
        await tag.insert()
    except DuplicateKeyError:
        raise ApiError("TOOL_TAG_EXISTS", f"A tool tag named '{clean}' already exists.") from None
    return tag


async def delete_tag(ctx: RequestContext, tag_id: str) -> ToolTag:
    tag = await ToolTag.get_in(ctx, tag_id)
    if tag is None:
        raise ApiError("TOOL_TAG_NOT_FOUND", "No tool tag with this id.")
    await tag.delete()
    await Tool.update_many_in(ctx, {"tags": tag.id}, {"$pull": {"tags": tag.id}, "$set": {"updated_at": utcnow()}})
    return tag


async def existing(ctx: RequestContext, ids: list[str]) -> set[ObjectId]:
    """Which of these (valid) ids are the organisation's tool tags."""
    wanted = {ObjectId(i) for i in ids if isinstance(i, str) and len(i) == 24 and ObjectId.is_valid(i)}
    if not wanted:
        return set()
    # By id, IN_BATCH ids per read; another organisation's tags are dropped.
    return {row["_id"] for row in await ToolTag.find_raw_by_ids_in(ctx, wanted, {"_id": 1})}
