"""An assistant's configuration: its fields with their defaults, and every bound and catalogue rule,
all checked together (422 ASSISTANT_VALIDATION_FAILED with `details[{path, code, message}]`).

A model that does not belong to its (known) provider is 422 MODEL_INVALID_FOR_PROVIDER when it is the
only problem, and one of the details otherwise. Values of the wrong JSON type never get here: the
typed input refuses them (400 VALIDATION_ERROR).
"""
from __future__ import annotations

from typing import Any

from bson import ObjectId

from leadline.models.tools import Tool
from leadline.resolvers.assistants import catalogue as cat
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail
from leadline.resolvers.phones import digits_only

# Every configuration field with its default, in the order responses list them.
DEFAULTS: dict[str, Any] = {
    "systemPrompt": "",
    "maxTokens": int(cat.LIMITS["maxTokens"].default),
    "temperature": cat.LIMITS["temperature"].default,
    "topP": float(cat.LIMITS["topP"].default),
    "voiceEnabled": False,
    "imageEnabled": False,
    "mediaInToolResponses": False,
    "memoryMinutes": int(cat.LIMITS["memoryMinutes"].default),
    "messageDelay": int(cat.LIMITS["messageDelay"].default),
    "typingEnabled": True,
    "sendSeen": True,
    "enableCommand": None,
    "disableCommand": None,
    "disableDuration": int(cat.LIMITS["disableDuration"].default),
    "disableOnInterrupt": True,
    "groupChatEnabled": False,
    "groupActivateOnMention": True,
    "voiceResponseEnabled": False,
    "voiceProvider": None,
    "voiceModel": None,
    "voiceName": None,
    "voicePrompt": None,
    "phoneNumbersList": [],
    "isNumbersExcluded": True,
}
CONFIG_FIELDS = tuple(DEFAULTS)
# What a restore brings back (the configuration): never isActive nor the channel.
RESTORED = ("name", "provider", "model", *CONFIG_FIELDS, "tools")


def with_defaults(payload: dict[str, Any]) -> dict[str, Any]:
    """The configuration fields of `payload`, absent (or null) ones at their defaults."""
    out = {}
    for name, default in DEFAULTS.items():
        value = payload.get(name)
        out[name] = (list(default) if isinstance(default, list) else default) if value is None else value
    return out


def _text(problems: list, payload: dict, name: str, maximum: int, *, required: bool = False) -> None:
    value = payload.get(name)
    if value is None or (required and not str(value).strip()):
        if required:
            problems.append(detail(name, "REQUIRED", f"{name} is required"))
        return
    if len(value) > maximum:
        problems.append(detail(name, "TOO_LONG", f"{name} is at most {maximum} characters"))


def _choice(problems: list, name: str, value: Any, allowed: tuple[str, ...], what: str) -> bool:
    if value is None:
        return True
    if value not in allowed:
        problems.append(detail(name, "INVALID_VALUE", f"{name} must be one of the {what}: {', '.join(allowed)}"))
        return False
    return True


async def validate(ctx: RequestContext, payload: dict[str, Any],
                   found: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """The normalised payload (configuration with defaults, deduplicated tool ids and phone numbers), or
    the refusal listing every problem (`found`: problems the caller already found)."""
    problems: list[dict[str, str]] = list(found or [])
    _text(problems, payload, "name", cat.NAME_MAX, required=True)
    provider, model = payload.get("provider"), payload.get("model")
    if not provider:
        problems.append(detail("provider", "REQUIRED", f"provider is required: {', '.join(cat.PROVIDERS)}"))
    else:
        _choice(problems, "provider", provider, cat.PROVIDERS, "providers")
    if not model:
        problems.append(detail("model", "REQUIRED", "model is required (see GET /v2.0/assistants/options)"))
    config = with_defaults(payload)
    for name, bound in cat.LIMITS.items():
        value = config[name]
        if not bound.min <= value <= bound.max:
            shown = f"{bound.min:g} and {bound.max:g}"
            problems.append(detail(name, "OUT_OF_RANGE", f"{name} must be between {shown}"))
    _text(problems, config, "systemPrompt", cat.SYSTEM_PROMPT_MAX)
    _text(problems, config, "voicePrompt", cat.VOICE_PROMPT_MAX)
    _text(problems, config, "enableCommand", cat.COMMAND_MAX)
    _text(problems, config, "disableCommand", cat.COMMAND_MAX)
    _voice(problems, config)
    config["phoneNumbersList"] = _phone_numbers(problems, config["phoneNumbersList"])
    tools = await _tools(ctx, problems, payload.get("tools") or [])
    mismatch = provider in cat.PROVIDER_MODELS and model and model not in cat.PROVIDER_MODELS[provider]
    if mismatch:
        message = (f"model '{model}' is not a {provider} model: "
                   f"{', '.join(cat.PROVIDER_MODELS[provider])}")
        if not problems:
            raise ApiError("MODEL_INVALID_FOR_PROVIDER", message,
                           details=[detail("model", "MODEL_INVALID_FOR_PROVIDER", message)])
        problems.append(detail("model", "MODEL_INVALID_FOR_PROVIDER", message))
    if problems:
        raise ApiError("ASSISTANT_VALIDATION_FAILED", f"The assistant is not valid: {problems[0]['message']}"
                       + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "") + ".", details=problems)
    return {"name": payload["name"].strip(), "provider": provider, "model": model, **config, "tools": tools}


def _voice(problems: list, config: dict[str, Any]) -> None:
    voice = config["voiceProvider"]
    known = _choice(problems, "voiceProvider", voice, cat.VOICE_PROVIDERS, "voice providers")
    for name, table, what in (("voiceModel", cat.TTS_MODELS, "TTS models"), ("voiceName", cat.VOICE_NAMES, "voices")):
        value = config[name]
        if value is None:
            continue
        if voice is None:
            problems.append(detail(name, "VOICE_PROVIDER_REQUIRED", f"{name} needs a voiceProvider"))
        elif known:
            _choice(problems, name, value, table[voice], f"{voice} {what}")
    if config["voiceResponseEnabled"] and voice is None:
        problems.append(detail("voiceProvider", "REQUIRED", "voiceProvider is required when voiceResponseEnabled is true"))


def _phone_numbers(problems: list, numbers: list[str]) -> list[str]:
    if len(numbers) > cat.PHONE_NUMBERS_MAX:
        problems.append(detail("phoneNumbersList", "TOO_MANY", f"phoneNumbersList holds at most "
                                                               f"{cat.PHONE_NUMBERS_MAX} numbers"))
        return numbers
    clean = []
    for i, raw in enumerate(numbers):
        digits = digits_only(raw)
        if not digits.isdigit() or not 6 <= len(digits) <= 15:
            problems.append(detail(f"phoneNumbersList[{i}]", "INVALID_PHONE_NUMBER",
                                   f"phoneNumbersList[{i}] must be a phone number in international form"))
        else:
            clean.append(digits)
    return list(dict.fromkeys(clean))


async def _tools(ctx: RequestContext, problems: list, raw: list[str]) -> list[ObjectId]:
    if len(raw) > cat.TOOLS_MAX:
        problems.append(detail("tools", "TOO_MANY", f"an assistant uses at most {cat.TOOLS_MAX} tools"))
        return []
    valid = {i: ObjectId(v) for i, v in enumerate(raw) if len(v) == 24 and ObjectId.is_valid(v)}
    found = await _tool_ids(ctx, list(set(valid.values())))
    for i, value in enumerate(raw):
        if i not in valid:
            problems.append(detail(f"tools[{i}]", "INVALID_ID", f"tools[{i}] must be a 24-character hexadecimal tool id"))
        elif valid[i] not in found:
            problems.append(detail(f"tools[{i}]", "TOOL_NOT_FOUND", f"tools[{i}]: no tool {value} in this organisation"))
    return list(dict.fromkeys(valid[i] for i in valid if valid[i] in found))


async def existing_tools(ctx: RequestContext, ids: list[Any]) -> list[ObjectId]:
    """The ids among these that are still tools of the organisation, in order (a restore drops the rest)."""
    wanted = [ObjectId(i) for i in ids if ObjectId.is_valid(str(i))]
    if not wanted:
        return []
    found = await _tool_ids(ctx, wanted)
    return [i for i in dict.fromkeys(wanted) if i in found]


async def _tool_ids(ctx: RequestContext, ids: list[ObjectId]) -> set[ObjectId]:
    if not ids:
        return set()
    # By id, IN_BATCH ids per read (models/base.py: SecantusDB's `$in` cost grows faster than its size).
    return {row["_id"] for row in await Tool.find_raw_by_ids_in(ctx, ids, {"_id": 1})}
