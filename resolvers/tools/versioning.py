"""Version history shared by assistants and tools: numbered entries, the last 30 kept, newest first.

The owner document's `version` is bumped in the same conditional update that changes it, so each
entry's number and snapshot are exactly the state that update wrote; the entry is written next.
"""
from __future__ import annotations

from typing import Any

from bson import ObjectId

from leadline.models.base import TenantDocument
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError

HISTORY_KEPT = 30


def changed_by(ctx: RequestContext) -> dict[str, Any]:
    """Who made a change through the API: the key's label (no person, so no email)."""
    key = ctx.key
    name = key.label if key is not None and key.label else "API key"
    return {"name": name, "email": None, "source": "api"}


async def record(ctx: RequestContext, model: type[TenantDocument], owner_field: str, owner_id: ObjectId,
                 version_number: int, change_type: str, description: str, snapshot: dict[str, Any]) -> None:
    """Write entry `version_number`, then forget those older than the last HISTORY_KEPT."""
    await model.new(ctx, **{owner_field: owner_id}, version_number=version_number, change_type=change_type,
                    change_description=description, changed_by=changed_by(ctx), snapshot=snapshot).insert()
    if version_number > HISTORY_KEPT:
        await model.delete_many_in(ctx, {owner_field: owner_id,
                                         "version_number": {"$lte": version_number - HISTORY_KEPT}})


async def entries(ctx: RequestContext, model: type[TenantDocument], owner_field: str, owner_id: ObjectId) -> list:
    return await model.find_in(ctx, {owner_field: owner_id}).sort([("version_number", -1)]).limit(HISTORY_KEPT).to_list()


async def restorable(ctx: RequestContext, model: type[TenantDocument], owner_field: str, owner_id: ObjectId,
                     version_number: int | None, allowed: tuple[str, ...]):
    """The entry to restore: VERSION_REQUIRED, HISTORY_VERSION_NOT_FOUND, VERSION_NOT_RESTORABLE."""
    if version_number is None:
        raise ApiError("VERSION_REQUIRED", "versionNumber is required.")
    entry = await model.find_one_in(ctx, {owner_field: owner_id, "version_number": version_number})
    if entry is None:
        raise ApiError("HISTORY_VERSION_NOT_FOUND", f"No history version {version_number} (the last "
                                                    f"{HISTORY_KEPT} versions are kept).")
    if entry.change_type not in allowed:
        raise ApiError("VERSION_NOT_RESTORABLE", f"Version {version_number} is a {entry.change_type} entry; only "
                                                 f"{' and '.join(allowed)} versions can be restored.")
    return entry
