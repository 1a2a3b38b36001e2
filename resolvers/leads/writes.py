"""What a lead segmentation write sends, and its validation into the stored shapes (models/leads.py).

Each write type holds the fields as sent, None meaning "not sent". Every problem of one request is
collected (`Problems`) and raised together: shape problems as one `VALIDATION_ERROR`, and only when
there is none of those, bad `valueType`s as `INVALID_VALUE_TYPE`, each with `details[{path, code,
message}]`. Nothing is written when anything is refused.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from leadline.models.leads import VALUE_TYPES, LeadCategory, LeadFollowup, LeadInsight
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.json_limits import clip

MAX_NAME = 64
MAX_TEXT = 2000
MAX_PROMPT = 32000
MAX_SETTING = 100
MAX_LIST = 1000
MAX_OPTIONS, MAX_OPTION = 100, 100
MAX_SETTINGS_DELAY = 24 * 3600
MAX_FOLLOWUP_DELAY = 365 * 24 * 3600
INSIGHT_KEY = re.compile(r"^[a-zA-Z][a-zA-Z0-9_]*$")
MAX_KEY = 64

SETTINGS_FIELDS = ("isCategorizationEnabled", "isFollowupEnabled", "delay", "model", "provider", "triggerPrompt",
                   "categorizationToolDescription")


@dataclass
class FollowupWrite:
    delay: float | None = None
    prompt: str | None = None
    active: bool | None = None


@dataclass
class CategoryWrite:
    name: str | None = None
    description: str | None = None
    fuDisabled: bool | None = None
    followups: list[FollowupWrite] | None = None


@dataclass
class InsightWrite:
    key: str | None = None
    name: str | None = None
    valueType: str | None = None
    options: list[str] | None = None
    description: str | None = None


@dataclass
class SettingsWrite:
    """The seven settings; None = not sent (an empty string clears a text setting)."""

    isCategorizationEnabled: bool | None = None
    isFollowupEnabled: bool | None = None
    delay: float | None = None
    model: str | None = None
    provider: str | None = None
    triggerPrompt: str | None = None
    categorizationToolDescription: str | None = None


@dataclass
class SegmentationWrite:
    settings: SettingsWrite = field(default_factory=SettingsWrite)
    categories: list[CategoryWrite] | None = None
    defaultFollowups: list[FollowupWrite] | None = None
    audienceSegments: list[InsightWrite] | None = None


class Problems:
    """The refusals of one request, raised together by `raise_if_any`."""

    def __init__(self) -> None:
        self.invalid: list[dict[str, str]] = []
        self.value_types: list[dict[str, str]] = []

    def add(self, path: str, code: str, message: str) -> None:
        self.invalid.append(detail(path, code, message))

    def raise_if_any(self) -> None:
        if self.invalid:
            raise validation_error(self.invalid)
        if self.value_types:
            raise ApiError("INVALID_VALUE_TYPE", self.value_types[0]["message"], details=self.value_types)


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def clean_name(value: str | None) -> str:
    """Whitespace collapsed: the stored spelling of a category name, and the form a path name is read in."""
    return " ".join((value or "").split())


def name_key(value: str | None) -> str:
    return clean_name(value).lower()


def _text(value: str | None, path: str, problems: Problems, maximum: int, *, required: bool = False) -> str | None:
    """Stripped text; None when not sent (or empty and not required)."""
    if value is None:
        if required:
            problems.add(path, "REQUIRED", f"{path} is required")
        return None
    text = value.strip()
    if required and not text:
        problems.add(path, "REQUIRED", f"{path} must not be empty")
    elif len(text) > maximum:
        problems.add(path, "TOO_LONG", f"{path} is at most {maximum} characters")
    return text


def _delay(value: float | None, path: str, problems: Problems, maximum: int) -> float | None:
    if value is None:
        return None
    if not math.isfinite(value) or value < 0 or value > maximum:
        problems.add(path, "OUT_OF_RANGE", f"{path} must be a number of seconds from 0 to {maximum}")
        return None
    return int(value) if float(value).is_integer() else value


def category_name(value: str | None, path: str, problems: Problems) -> str:
    name = clean_name(value)
    if value is None or not name:
        problems.add(path, "REQUIRED", f"{path} is required")
    elif len(name) > MAX_NAME:
        problems.add(path, "TOO_LONG", f"{path} is at most {MAX_NAME} characters")
    elif "/" in name:
        # A category is addressed by name in the path (/leads/categories/{name}).
        problems.add(path, "INVALID_VALUE", f"{path} must not contain '/'")
    return name


def followup(write: FollowupWrite, path: str, problems: Problems) -> LeadFollowup:
    delay = _delay(write.delay, _join(path, "delay"), problems, MAX_FOLLOWUP_DELAY)
    if write.delay is None:
        problems.add(_join(path, "delay"), "REQUIRED", f"{_join(path, 'delay')} is required")
    prompt = _text(write.prompt, _join(path, "prompt"), problems, MAX_PROMPT, required=True)
    return LeadFollowup(delay=delay or 0, prompt=prompt or "", active=True if write.active is None else write.active)


def followups(writes: list[FollowupWrite] | None, path: str, problems: Problems) -> list[LeadFollowup]:
    if writes is None:
        return []
    if len(writes) > MAX_LIST:
        problems.add(path, "TOO_LONG", f"{path} holds at most {MAX_LIST} entries")
        return []
    return [followup(w, f"{path}[{i}]", problems) for i, w in enumerate(writes)]


def category(write: CategoryWrite, path: str, problems: Problems) -> LeadCategory:
    """A whole category (create, or an entry of a PUT list)."""
    name = category_name(write.name, _join(path, "name"), problems)
    description = _text(write.description, _join(path, "description"), problems, MAX_TEXT) or ""
    return LeadCategory(name=name, description=description, fuDisabled=bool(write.fuDisabled),
                        followups=followups(write.followups, _join(path, "followups"), problems))


def _value_type(value: str | None, path: str, problems: Problems) -> str | None:
    if value is None:
        return None
    canonical = value.strip().lower()
    if canonical not in VALUE_TYPES:
        problems.value_types.append(detail(path, "INVALID_VALUE_TYPE", f"{path} must be one of: "
                                                                      f"{', '.join(VALUE_TYPES)} (got '{clip(value)}')"))
        return None
    return canonical


def _options(values: list[str] | None, path: str, problems: Problems) -> list[str] | None:
    if values is None:
        return None
    cleaned = list(dict.fromkeys(v.strip() for v in values if v.strip()))
    if len(cleaned) > MAX_OPTIONS or any(len(v) > MAX_OPTION for v in cleaned):
        problems.add(path, "TOO_LONG", f"{path} holds at most {MAX_OPTIONS} options of at most {MAX_OPTION} characters")
    return cleaned


def insight_key(value: str | None, path: str, problems: Problems) -> str:
    key = (value or "").strip()
    if not key:
        problems.add(path, "REQUIRED", f"{path} is required")
    elif len(key) > MAX_KEY or not INSIGHT_KEY.match(key):
        problems.add(path, "INVALID_VALUE", f"{path} must match ^[a-zA-Z][a-zA-Z0-9_]*$ (at most {MAX_KEY} characters)")
    return key


def insight(write: InsightWrite, path: str, problems: Problems) -> LeadInsight:
    """A whole insight (create, or an entry of a PUT list); `valueType` defaults to `text`, `name` to the key."""
    key = insight_key(write.key, _join(path, "key"), problems)
    name = _text(write.name, _join(path, "name"), problems, MAX_SETTING) or key
    return LeadInsight(key=key, name=name, valueType=_value_type(write.valueType, _join(path, "valueType"), problems) or "text",
                       options=_options(write.options, _join(path, "options"), problems) or [],
                       description=_text(write.description, _join(path, "description"), problems, MAX_TEXT) or "")


def insight_changes(write: InsightWrite, problems: Problems) -> dict[str, Any]:
    """The fields a PATCH changes; `key` is immutable (any `key` sent is refused)."""
    if write.key is not None:
        problems.add("key", "IMMUTABLE", "key cannot change; create a new insight instead")
    changes: dict[str, Any] = {}
    if write.name is not None:
        name = _text(write.name, "name", problems, MAX_SETTING, required=True)
        changes["name"] = name
    if (value_type := _value_type(write.valueType, "valueType", problems)) is not None:
        changes["valueType"] = value_type
    if (options := _options(write.options, "options", problems)) is not None:
        changes["options"] = options
    if write.description is not None:
        changes["description"] = _text(write.description, "description", problems, MAX_TEXT)
    return changes


def category_changes(write: CategoryWrite, problems: Problems) -> dict[str, Any]:
    """The fields a category PATCH changes (`name`, `description`, `fuDisabled`)."""
    changes: dict[str, Any] = {}
    if write.name is not None:
        changes["name"] = category_name(write.name, "name", problems)
    if write.description is not None:
        changes["description"] = _text(write.description, "description", problems, MAX_TEXT)
    if write.fuDisabled is not None:
        changes["fuDisabled"] = write.fuDisabled
    return changes


def settings_changes(write: SettingsWrite, problems: Problems, prefix: str = "") -> dict[str, Any]:
    """The settings sent; an empty text setting is stored as null."""
    changes: dict[str, Any] = {}
    for flag in ("isCategorizationEnabled", "isFollowupEnabled"):
        if getattr(write, flag) is not None:
            changes[flag] = getattr(write, flag)
    if write.delay is not None:
        delay = _delay(write.delay, _join(prefix, "delay"), problems, MAX_SETTINGS_DELAY)
        if delay is not None:
            changes["delay"] = delay
    for name, maximum in (("model", MAX_SETTING), ("provider", MAX_SETTING), ("triggerPrompt", MAX_PROMPT),
                          ("categorizationToolDescription", MAX_PROMPT)):
        value = getattr(write, name)
        if value is not None:
            changes[name] = _text(value, _join(prefix, name), problems, maximum) or None
    return changes


def categories(writes: list[CategoryWrite], path: str, problems: Problems) -> list[LeadCategory]:
    if len(writes) > MAX_LIST:
        problems.add(path, "TOO_LONG", f"{path} holds at most {MAX_LIST} entries")
        return []
    return [category(w, f"{path}[{i}]", problems) for i, w in enumerate(writes)]


def insights(writes: list[InsightWrite], path: str, problems: Problems) -> list[LeadInsight]:
    if len(writes) > MAX_LIST:
        problems.add(path, "TOO_LONG", f"{path} holds at most {MAX_LIST} entries")
        return []
    return [insight(w, f"{path}[{i}]", problems) for i, w in enumerate(writes)]
