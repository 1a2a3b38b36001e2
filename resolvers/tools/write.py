"""Creating, updating, toggling, restoring and deleting tools; each change writes a history version.

Updates are conditional on the tool's `version` (a concurrent change makes the merge start again), and
bump it, so a history entry's snapshot is exactly what its update wrote.
"""
from __future__ import annotations

from typing import Any

from bson import ObjectId
from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

from leadline.models.base import utcnow
from leadline.models.tools import Tool, ToolRun, ToolVersion
from leadline.resolvers import secrets
from leadline.resolvers.assistants import write as assistants
from leadline.resolvers.billing.limits import within_limit
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.tools import tags, versioning
from leadline.resolvers.tools.definitions import TYPES
from leadline.resolvers.tools.payload import keep_masked, merge, of_tool, seal_secrets
from leadline.resolvers.tools.queries import get_tool
from leadline.resolvers.tools.validation import normalise, validate

RETRIES = 5
RESTORABLE = ("create", "config_update")
# The stored fields that make a tool's configuration (everything but isActive).
CONFIG_FIELDS = ("name", "description", "pixel_event", "tags", "config", "extra_messages")


def _name_taken(name: str) -> ApiError:
    return ApiError("TOOL_NAME_EXISTS", f"A tool named '{name}' already exists in this organisation.")


async def _known_tags(ctx: RequestContext, payload: dict[str, Any]) -> set[str]:
    raw = payload.get("tags")
    ids = [t for t in raw if isinstance(t, str)] if isinstance(raw, list) else []
    return {str(t) for t in await tags.existing(ctx, ids)}


async def _checked(ctx: RequestContext, payload: dict[str, Any]) -> dict[str, Any]:
    """The stored fields of a valid payload (secrets still clear)."""
    known = await _known_tags(ctx, payload)
    validate(payload, known)
    config, extra = normalise(payload)
    return {"name": payload["name"], "description": payload["description"],
            "is_active": payload.get("isActive") is not False, "pixel_event": payload.get("pixelEvent"),
            "tags": [ObjectId(t) for t in dict.fromkeys(t.lower() for t in payload.get("tags") or [])],
            "config": config, "extra_messages": extra}


async def _name_free(ctx: RequestContext, name: str, tool_id: ObjectId | None = None) -> None:
    other = await Tool.find_one_in(ctx, {"name": name})
    if other is not None and other.id != tool_id:
        raise _name_taken(name)


async def create_tool(ctx: RequestContext, payload: dict[str, Any]) -> Tool:
    fields = await _checked(ctx, payload)
    keyring = await secrets.keyring(ctx.services.settings)
    fields["config"] = seal_secrets(fields["config"], keyring)
    await _name_free(ctx, fields["name"])
    async with within_limit(ctx, "max_tools"):
        tool = Tool.new(ctx, tool_type=payload["toolType"], version=1, **fields)
        try:
            await tool.insert()
        except DuplicateKeyError:
            raise _name_taken(fields["name"]) from None
    await versioning.record(ctx, ToolVersion, "tool_id", tool.id, 1, "create",
                            f"Created {tool.tool_type} tool '{tool.name}'", of_tool(tool))
    return tool


async def _write(ctx: RequestContext, tool: Tool, changes: dict[str, Any]) -> Tool | None:
    """The conditional update (None when the tool changed meanwhile); bumps `version`."""
    try:
        raw = await Tool.find_one_and_update_in(
            ctx, {"_id": tool.id, "version": tool.version},
            {"$set": {**changes, "updated_at": utcnow()}, "$inc": {"version": 1}}, return_document=ReturnDocument.AFTER)
    except DuplicateKeyError:
        raise _name_taken(changes.get("name", tool.name)) from None
    return None if raw is None else Tool.model_validate(raw)


def _describe_changes(before: Tool, changes: dict[str, Any]) -> str:
    names = {"name": "name", "description": "description", "pixel_event": "pixelEvent", "tags": "tags",
             "extra_messages": "extraMessages", "is_active": "isActive"}
    changed = [names[k] for k in changes if k in names]
    if "config" in changes:
        changed += sorted(k for k in set(before.config) | set(changes["config"])
                          if before.config.get(k) != changes["config"].get(k))
    return "Updated " + ", ".join(changed) if changed else "Updated"


async def update_tool(ctx: RequestContext, tool_id: str, patch: dict[str, Any]) -> Tool:
    tool = await get_tool(ctx, tool_id)
    if patch.get("toolType") is not None and patch["toolType"] != tool.tool_type:
        raise ApiError("TOOL_TYPE_IMMUTABLE", f"toolType cannot change (this tool is a {tool.tool_type} tool); "
                                              "create a new tool instead.")
    keyring = await secrets.keyring(ctx.services.settings)
    for _ in range(RETRIES):
        current = of_tool(tool)
        merged = merge(current, patch)
        keep_masked(merged, current)
        merged["toolType"] = tool.tool_type
        fields = await _checked(ctx, merged)
        fields["config"] = seal_secrets(fields["config"], keyring, tool.config)
        if fields["name"] != tool.name:
            await _name_free(ctx, fields["name"], tool.id)
        changes = {k: v for k, v in fields.items() if getattr(tool, k) != v}
        if not changes:
            return tool
        config_changed = any(k in CONFIG_FIELDS for k in changes)
        updated = await _write(ctx, tool, changes)
        if updated is None:
            tool = await get_tool(ctx, tool_id)
            continue
        if config_changed:
            change_type, description = "config_update", _describe_changes(tool, changes)
        else:
            change_type, description = "toggle", "Activated" if updated.is_active else "Deactivated"
        await versioning.record(ctx, ToolVersion, "tool_id", updated.id, updated.version, change_type, description,
                                of_tool(updated))
        return updated
    raise ApiError("INTERNAL_SERVER_ERROR", "The tool kept changing during the update; try again.")


async def toggle_tool(ctx: RequestContext, tool_id: str, is_active: bool | None) -> Tool:
    """`isActive` sets the state; without it the state flips. Always a `toggle` version."""
    tool = await get_tool(ctx, tool_id)
    for _ in range(RETRIES):
        target = (not tool.is_active) if is_active is None else is_active
        updated = await _write(ctx, tool, {"is_active": target})
        if updated is None:
            tool = await get_tool(ctx, tool_id)
            continue
        await versioning.record(ctx, ToolVersion, "tool_id", updated.id, updated.version, "toggle",
                                "Activated" if target else "Deactivated", of_tool(updated))
        return updated
    raise ApiError("INTERNAL_SERVER_ERROR", "The tool kept changing during the toggle; try again.")


async def restore_tool(ctx: RequestContext, tool_id: str, version_number: int | None) -> Tool:
    """The configuration of a create or config_update version (tags deleted since are dropped); isActive
    stays. Recorded as a `restore` version."""
    tool = await get_tool(ctx, tool_id)
    entry = await versioning.restorable(ctx, ToolVersion, "tool_id", tool.id, version_number, RESTORABLE)
    snap = entry.snapshot
    known = {str(t) for t in await tags.existing(ctx, snap.get("tags") or [])}
    type_fields = TYPES[tool.tool_type].field_names
    changes = {"name": snap["name"], "description": snap["description"], "pixel_event": snap.get("pixelEvent"),
               "tags": [ObjectId(t) for t in snap.get("tags") or [] if t in known],
               "config": {k: v for k, v in snap.items() if k in type_fields},
               "extra_messages": snap.get("extraMessages") or []}
    for _ in range(RETRIES):
        if changes["name"] != tool.name:
            await _name_free(ctx, changes["name"], tool.id)
        updated = await _write(ctx, tool, changes)
        if updated is None:
            tool = await get_tool(ctx, tool_id)
            continue
        await versioning.record(ctx, ToolVersion, "tool_id", updated.id, updated.version, "restore",
                                f"Restored version {version_number}", of_tool(updated))
        return updated
    raise ApiError("INTERNAL_SERVER_ERROR", "The tool kept changing during the restore; try again.")


async def delete_tool(ctx: RequestContext, tool_id: str) -> Tool:
    """The tool, its history and run logs go; assistants using it lose it from `tools` (a config_update
    version each)."""
    tool = await get_tool(ctx, tool_id)
    await Tool.delete_one_in(ctx, {"_id": tool.id})
    await ToolVersion.delete_many_in(ctx, {"tool_id": tool.id})
    await ToolRun.delete_many_in(ctx, {"tool_id": tool.id})
    await assistants.remove_tool(ctx, tool.id, tool.name)
    return tool
