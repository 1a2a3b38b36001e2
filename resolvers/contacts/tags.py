"""Contact tags: names unique within the organisation, case-insensitively."""
from __future__ import annotations

from bson import ObjectId
from pymongo.errors import DuplicateKeyError

from leadline.models.base import utcnow
from leadline.models.contacts import Contact, Tag
from leadline.resolvers.billing.limits import within_limit
from leadline.resolvers.context import RequestContext
from leadline.resolvers.contacts import term_counts
from leadline.resolvers.contacts.ids import object_id
from leadline.resolvers.contacts.terms import term
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.billing.usage import usage_counter

MAX_TAG_NAME = 64


def _name(value: str | None) -> str:
    name = " ".join((value or "").split())
    if not name:
        raise ApiError("MISSING_TAG_NAME", "name is required.")
    if len(name) > MAX_TAG_NAME:
        raise validation_error([detail("name", "TOO_LONG", f"name is at most {MAX_TAG_NAME} characters")])
    return name


def _taken(name: str) -> ApiError:
    return ApiError("TAG_ALREADY_EXISTS", f"A tag named '{name}' already exists.")


async def list_tags(ctx: RequestContext) -> list[Tag]:
    tags = await Tag.find_in(ctx).to_list()
    return sorted(tags, key=lambda t: (t.name_key, t.name))


async def create_tag(ctx: RequestContext, name: str | None) -> Tag:
    clean = _name(name)
    if await Tag.find_one_in(ctx, {"name_key": clean.lower()}):
        raise _taken(clean)
    async with within_limit(ctx, "max_contact_tags"):
        tag = Tag.new(ctx, name=clean, name_key=clean.lower())
        try:
            await tag.insert()
        except DuplicateKeyError:
            raise _taken(clean) from None
    return tag


async def get_tag(ctx: RequestContext, tag_id: str) -> Tag:
    tag = await Tag.get_in(ctx, object_id(tag_id, "INVALID_TAG_ID", "tagId"))
    if tag is None:
        raise ApiError("TAG_NOT_FOUND", "No tag with this id.")
    return tag


async def rename_tag(ctx: RequestContext, tag_id: str, name: str | None) -> Tag:
    tag = await get_tag(ctx, tag_id)
    clean = _name(name)
    other = await Tag.find_one_in(ctx, {"name_key": clean.lower()})
    if other is not None and other.id != tag.id:
        raise _taken(clean)
    tag.name, tag.name_key, tag.updated_at = clean, clean.lower(), utcnow()
    try:
        await tag.save()
    except DuplicateKeyError:
        raise _taken(clean) from None
    return tag


async def delete_tag(ctx: RequestContext, tag_id: str) -> Tag:
    """The tag is also taken off every contact that carries it (one indexed multi-update), and its
    term count goes with it."""
    tag = await get_tag(ctx, tag_id)
    await tag.delete()
    tag_term = term(ctx.org_id, "tags", tag.id)
    await Contact.update_many_in(
        ctx, {"terms": tag_term},
        {"$pull": {"tags": tag.id, "terms": tag_term}, "$inc": {"version": 1}, "$set": {"updated_at": utcnow()}})
    await term_counts.forget(ctx.org_id, tag_term)
    return tag


async def existing_tag_ids(ctx: RequestContext, raw_ids: list[str]) -> list[ObjectId]:
    """Tag ids sent on a contact: each 24-hex (INVALID_TAG_ID) and this organisation's (TAG_NOT_FOUND)."""
    ids = list(dict.fromkeys(object_id(t, "INVALID_TAG_ID", "tags[]") for t in raw_ids))
    if not ids:
        return []
    found = {t.id for t in await Tag.get_many_in(ctx, ids)}
    missing = [str(i) for i in ids if i not in found]
    if missing:
        raise ApiError("TAG_NOT_FOUND", f"Unknown tag id(s): {', '.join(missing)}.")
    return ids


@usage_counter("max_contact_tags")
async def count_tags(org_id, timezone: str = "UTC") -> int:
    return await Tag.count_in(org_id)
