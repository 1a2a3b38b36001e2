"""A tool as one payload (its API shape): stored form, patch merge, and its secrets sealed or masked.

The stored tool's payload holds its secrets sealed (resolvers/secrets.py). A patch is merged over it:
objects merge key by key, except `components`, `parameters`, `headers`, `catalogAction` and
`storeappAction`, which (like every array) a patch replaces whole; a null removes a key (its default
applies again). A secret sent back as the mask keeps the stored one.
"""
from __future__ import annotations

import copy
from typing import Any

from leadline.models.tools import Tool
from leadline.resolvers.secrets import MASK, Keyring, is_sealed

REPLACED_WHOLE = frozenset({"components", "parameters", "headers", "catalogAction", "storeappAction"})
SECRET_PATHS: tuple[tuple[str, ...], ...] = (("auth", "token"), ("auth", "password"), ("auth", "apiKeyValue"),
                                             ("secretToken",))


def of_tool(tool: Tool) -> dict[str, Any]:
    """The stored tool as a payload (secrets sealed), which is also its history snapshot."""
    return {"name": tool.name, "description": tool.description, "toolType": tool.tool_type,
            "isActive": tool.is_active, "pixelEvent": tool.pixel_event, "tags": [str(t) for t in tool.tags],
            **tool.config, "extraMessages": list(tool.extra_messages)}


def merge(current: Any, patch: Any, key: str | None = None) -> Any:
    if isinstance(current, dict) and isinstance(patch, dict) and key not in REPLACED_WHOLE:
        out = dict(current)
        for k, v in patch.items():
            if v is None:
                out.pop(k, None)
            else:
                out[k] = merge(current.get(k), v, k)
        return out
    return patch


def _get(value: dict[str, Any], path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _set(value: dict[str, Any], path: tuple[str, ...], new: Any) -> None:
    for part in path[:-1]:
        value = value.get(part)
        if not isinstance(value, dict):
            return
    if path[-1] in value:
        value[path[-1]] = new


def keep_masked(merged: dict[str, Any], current: dict[str, Any]) -> None:
    """A secret sent back as the mask is the stored one (left as the mask when none is stored)."""
    for path in SECRET_PATHS:
        stored = _get(current, path)
        if _get(merged, path) == MASK and is_sealed(stored):
            _set(merged, path, stored)


def seal_secrets(config: dict[str, Any], keyring: Keyring, current: dict[str, Any] | None = None) -> dict[str, Any]:
    """`config` with every clear secret sealed; one equal to the stored secret keeps its stored form, so
    re-sending a secret is not a change."""
    out = copy.deepcopy(config)
    for path in SECRET_PATHS:
        value = _get(out, path)
        if isinstance(value, str) and not is_sealed(value):
            stored = _get(current or {}, path)
            keep = is_sealed(stored) and keyring.open(stored) == value
            _set(out, path, stored if keep else keyring.seal(value))
    return out


def masked(config: dict[str, Any]) -> dict[str, Any]:
    """What responses, history and logs show: every secret present replaced by the mask."""
    out = copy.deepcopy(config)
    for path in SECRET_PATHS:
        if _get(out, path):
            _set(out, path, MASK)
    return out


def revealed(config: dict[str, Any], keyring: Keyring) -> dict[str, Any]:
    out = copy.deepcopy(config)
    for path in SECRET_PATHS:
        value = _get(out, path)
        if is_sealed(value):
            _set(out, path, keyring.open(value))
    return out


def secrets_of(config: dict[str, Any], keyring: Keyring) -> list[str]:
    """The clear secrets (scrubbed from anything a call records)."""
    found = []
    for path in SECRET_PATHS:
        value = keyring.open(_get(config, path)) if _get(config, path) else None
        if value:
            found.append(value)
    return found
