"""Freeform message content: the spec's rules per type, turned into the Cloud API object of that type."""
from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from leadline.resolvers.errors import ApiError, detail, validation_error

TYPES: tuple[str, ...] = ("text", "image", "document", "audio", "video")
# type -> (required, optional) content keys (spec: Chat messaging table).
FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "text": (("body",), ()),
    "image": (("link",), ("caption",)),
    "document": (("link", "filename"), ("caption",)),
    "audio": (("link",), ()),
    "video": (("link",), ("caption",)),
}
MAX_LENGTH = {"body": 4096, "caption": 1024, "filename": 240, "link": 2048}


def is_http_url(value: str) -> bool:
    parsed = urlparse(value)
    return parsed.scheme in ("http", "https") and bool(parsed.netloc)


def validate_content(type_: str | None, content: Any) -> tuple[str, dict[str, Any]]:
    """(type, Cloud API content). Codes: MISSING_CONTENT, MISSING_TEXT_BODY, MISSING_MEDIA_LINK, and
    VALIDATION_ERROR for a missing or unknown type and for other malformed content fields."""
    kind = (type_ or "").strip().lower()
    if not kind:
        raise validation_error([detail("type", "REQUIRED", f"type is required: one of {', '.join(TYPES)}")])
    if kind not in TYPES:
        raise validation_error([detail("type", "INVALID_VALUE", f"type must be one of: {', '.join(TYPES)}")])
    if not isinstance(content, dict) or not content:
        raise ApiError("MISSING_CONTENT", "content is required: a non-empty object.")
    required, optional = FIELDS[kind]
    present = {k: v for k, v in content.items() if v is not None and not (isinstance(v, str) and not v.strip())}
    if kind == "text" and "body" not in present:
        raise ApiError("MISSING_TEXT_BODY", "A text message needs content.body.")
    if kind != "text" and "link" not in present:
        raise ApiError("MISSING_MEDIA_LINK", f"A {kind} message needs content.link.")
    problems = [detail(f"content.{k}", "UNKNOWN_FIELD", f"'{k}' is not a field of {kind} content")
                for k in content if k not in required + optional]
    problems += [detail(f"content.{k}", "REQUIRED", f"a {kind} message needs content.{k}")
                 for k in required if k not in present]
    for key, value in present.items():
        if key not in required + optional:
            continue
        if not isinstance(value, str):
            problems.append(detail(f"content.{key}", "INVALID_TYPE", f"content.{key} must be a string"))
        elif len(value) > MAX_LENGTH[key]:
            problems.append(detail(f"content.{key}", "OUT_OF_RANGE",
                                   f"content.{key} is longer than {MAX_LENGTH[key]} characters"))
        elif key == "link" and not is_http_url(value):
            problems.append(detail("content.link", "INVALID_VALUE", "content.link must be an http(s) URL"))
    if problems:
        raise validation_error(problems)
    return kind, {k: present[k] for k in required + optional if k in present}


def preview(kind: str, content: dict[str, Any]) -> str:
    """The text a conversation row shows for this message."""
    if kind == "text":
        return content["body"]
    return content.get("caption") or content.get("filename") or f"[{kind}]"
