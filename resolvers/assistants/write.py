"""Creating, updating, toggling, restoring and deleting assistants; every change writes a history version.

Updates are conditional on the assistant's `version` and bump it, so each entry's snapshot is the state
its update wrote. What an update records: `config_update` when the configuration changed (even with
the channel), `channel_update` for a channel-only change, `toggle` for an isActive-only change, nothing
when nothing changed (`clearChatHistory` alone is not a version).
"""
from __future__ import annotations

from typing import Any

from bson import ObjectId
from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

from leadline.models.assistants import Assistant, AssistantVersion
from leadline.models.base import utcnow
from leadline.resolvers.assistants import channels, config
from leadline.resolvers.assistants.channels import Binding, binding_of, channel_fields
from leadline.resolvers.assistants.queries import configuration, get_assistant, state
from leadline.resolvers.billing.limits import within_limit
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.tools import versioning

RETRIES = 5
RESTORABLE = ("create", "config_update")


def _busy() -> ApiError:
    return ApiError("INTERNAL_SERVER_ERROR", "The assistant kept changing during the request; try again.")


async def _record(ctx: RequestContext, assistant: Assistant, change_type: str, description: str) -> None:
    await versioning.record(ctx, AssistantVersion, "assistant_id", assistant.id, assistant.version, change_type,
                            description, state(assistant))


async def _write(ctx: RequestContext, assistant: Assistant, changes: dict[str, Any], *,
                 bump: bool = True) -> Assistant | None:
    """The conditional update; None when the assistant changed (or went) meanwhile. A channel another
    assistant took meanwhile raises DuplicateKeyError."""
    update: dict[str, Any] = {"$set": {**changes, "updated_at": utcnow()}}
    if bump:
        update["$inc"] = {"version": 1}
    raw = await Assistant.find_one_and_update_in(ctx, {"_id": assistant.id, "version": assistant.version}, update,
                                                 return_document=ReturnDocument.AFTER)
    return None if raw is None else Assistant.model_validate(raw)


async def _take_channel(ctx: RequestContext, binding: Binding, taker: ObjectId | None, taker_name: str) -> None:
    """Detach the assistant holding `binding` (other than `taker`), with a channel_update entry."""
    for _ in range(RETRIES):
        other = await channels.holder(ctx, binding)
        if other is None or other.id == taker:
            return
        detached = await _write(ctx, other, channel_fields(None))
        if detached is not None:
            await _record(ctx, detached, "channel_update",
                          f"Disconnected from {binding.describe()}: the channel moved to assistant '{taker_name}'")
            return
    raise _busy()


def _assistant_fields(clean: dict[str, Any]) -> dict[str, Any]:
    return {"name": clean["name"], "provider": clean["provider"], "model": clean["model"],
            "config": {k: clean[k] for k in config.CONFIG_FIELDS}, "tools": clean["tools"]}


async def create_assistant(ctx: RequestContext, payload: dict[str, Any], channel: dict[str, Any] | None) -> Assistant:
    request, problems = channels.parse(channel)
    clean = await config.validate(ctx, payload, problems)
    binding = await channels.resolve(ctx, request) if request is not None and request.activate else None
    async with within_limit(ctx, "max_models"):
        for _ in range(RETRIES):
            if binding is not None:
                await _take_channel(ctx, binding, None, clean["name"])
            assistant = Assistant.new(ctx, is_active=payload.get("isActive") is not False, version=1,
                                      **_assistant_fields(clean), **channel_fields(binding))
            try:
                await assistant.insert()
                break
            except DuplicateKeyError:  # another assistant took the channel meanwhile
                continue
        else:
            raise _busy()
    connected = f", connected to {binding.describe()}" if binding else ""
    await _record(ctx, assistant, "create", f"Created assistant '{assistant.name}' ({assistant.provider} "
                                            f"{assistant.model}){connected}")
    return assistant


def _changed_names(before: Assistant, after: dict[str, Any]) -> list[str]:
    old = configuration(before)
    return [k for k in after if old.get(k) != after[k]]


def _channel_description(before: Binding | None, after: Binding | None) -> str:
    if after is None:
        return f"Disconnected from {before.describe()}"
    if before is None:
        return f"Connected to {after.describe()}"
    return f"Moved from {before.describe()} to {after.describe()}"


async def update_assistant(ctx: RequestContext, model_id: str, patch: dict[str, Any], channel: dict[str, Any] | None,
                           clear_chat_history: bool | None) -> Assistant:
    assistant = await get_assistant(ctx, model_id)
    request, problems = channels.parse(channel)
    for _ in range(RETRIES):
        current = {"name": assistant.name, "provider": assistant.provider, "model": assistant.model,
                   **assistant.config, "tools": [str(t) for t in assistant.tools]}
        clean = await config.validate(ctx, {**current, **{k: v for k, v in patch.items() if k != "isActive"}},
                                      problems)
        before = binding_of(assistant)
        after = before
        if request is not None:
            after = await channels.resolve(ctx, request) if request.activate else None
        fields = _assistant_fields(clean)
        wanted = {"name": fields["name"], "provider": fields["provider"], "model": fields["model"],
                  **fields["config"], "tools": fields["tools"]}
        changed = _changed_names(assistant, wanted)
        channel_changed = (after.key if after else None) != assistant.channel_key
        active = assistant.is_active if patch.get("isActive") is None else patch["isActive"]
        changes: dict[str, Any] = dict(fields) if changed else {}
        if channel_changed:
            changes.update(channel_fields(after))
        if active != assistant.is_active:
            changes["is_active"] = active
        versioned = bool(changes)
        if clear_chat_history:
            changes["chat_history_cleared_at"] = utcnow()
        if not changes:
            return assistant
        if channel_changed and after is not None:
            await _take_channel(ctx, after, assistant.id, clean["name"])
        try:
            updated = await _write(ctx, assistant, changes, bump=versioned)
        except DuplicateKeyError:
            updated = None
        if updated is None:
            assistant = await get_assistant(ctx, model_id)
            continue
        if changed:
            description = "Updated " + ", ".join(changed)
            if channel_changed:
                description += "; " + _channel_description(before, after).lower()
            await _record(ctx, updated, "config_update", description)
        elif channel_changed:
            await _record(ctx, updated, "channel_update", _channel_description(before, after))
        elif versioned:
            await _record(ctx, updated, "toggle", "Activated" if updated.is_active else "Deactivated")
        return updated
    raise _busy()


async def toggle_assistant(ctx: RequestContext, model_id: str, is_active: bool | None) -> Assistant:
    assistant = await get_assistant(ctx, model_id)
    if is_active is None:
        raise ApiError("IS_ACTIVE_REQUIRED", "isActive (true or false) is required.")
    for _ in range(RETRIES):
        updated = await _write(ctx, assistant, {"is_active": is_active})
        if updated is not None:
            await _record(ctx, updated, "toggle", "Activated" if is_active else "Deactivated")
            return updated
        assistant = await get_assistant(ctx, model_id)
    raise _busy()


async def restore_assistant(ctx: RequestContext, model_id: str, version_number: int | None,
                            clear_chat_history: bool | None) -> Assistant:
    """The configuration of a create or config_update version (tools deleted since are dropped), never
    isActive nor the channel. Recorded as a `restore` version."""
    assistant = await get_assistant(ctx, model_id)
    entry = await versioning.restorable(ctx, AssistantVersion, "assistant_id", assistant.id, version_number,
                                        RESTORABLE)
    snap = entry.snapshot
    changes: dict[str, Any] = {"name": snap["name"], "provider": snap["provider"], "model": snap["model"],
                               "config": config.with_defaults(snap),
                               "tools": await config.existing_tools(ctx, snap.get("tools") or [])}
    if clear_chat_history:
        changes["chat_history_cleared_at"] = utcnow()
    for _ in range(RETRIES):
        updated = await _write(ctx, assistant, changes)
        if updated is not None:
            await _record(ctx, updated, "restore", f"Restored version {version_number}")
            return updated
        assistant = await get_assistant(ctx, model_id)
    raise _busy()


async def delete_assistant(ctx: RequestContext, model_id: str) -> Assistant:
    """The assistant and its history go (its channel is free again)."""
    assistant = await get_assistant(ctx, model_id)
    await Assistant.delete_one_in(ctx, {"_id": assistant.id})
    await AssistantVersion.delete_many_in(ctx, {"assistant_id": assistant.id})
    return assistant


async def remove_tool(ctx: RequestContext, tool_id: ObjectId, tool_name: str) -> int:
    """A deleted tool leaves every assistant that used it: one update each, a config_update version."""
    users = await Assistant.find_in(ctx, {"tools": tool_id}).to_list()
    for assistant in users:
        for _ in range(RETRIES):
            raw = await Assistant.find_one_and_update_in(
                ctx, {"_id": assistant.id, "version": assistant.version},
                {"$pull": {"tools": tool_id}, "$inc": {"version": 1}, "$set": {"updated_at": utcnow()}},
                return_document=ReturnDocument.AFTER)
            if raw is not None:
                await _record(ctx, Assistant.model_validate(raw), "config_update",
                              f"Removed tool '{tool_name}' (deleted)")
                break
            assistant = await Assistant.get_in(ctx, assistant.id)
            if assistant is None or tool_id not in assistant.tools:
                break
    return len(users)
