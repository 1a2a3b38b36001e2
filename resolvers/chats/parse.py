"""Reading one inbound `messages[]` item of a Cloud API webhook into what the history stores.

Only plain values are derived here (no database): the stored `type`, a `text`, a `media` object and
the kind-specific `content`. Kinds with nothing to store (edits, deletions, system notices,
unsupported content, unknown future kinds) are recognised as `ignored`.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

MEDIA_KINDS = ("image", "video", "document", "audio", "sticker")
STORED_KINDS = (*MEDIA_KINDS, "text", "location", "contacts", "button", "interactive", "order")
# Acknowledged and logged, not stored (system notices, unsupported content, ...).
IGNORED_KINDS = ("system", "unsupported", "ephemeral", "request_welcome", "unknown")
MAX_TEXT = 4096


@dataclass(frozen=True)
class Parsed:
    kind: str  # the provider's `type`
    action: str  # "store", "react", "edit", "revoke" or "ignore"
    text: str | None = None
    media: dict[str, Any] | None = None
    content: dict[str, Any] | None = None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _clip(text: str | None) -> str | None:
    return text[:MAX_TEXT] if text else None


def _media(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    media = {"type": "voice" if kind == "audio" and body.get("voice") is True else kind,
             "url": _str(body.get("url")), "id": _str(body.get("id")), "mimeType": _str(body.get("mime_type")),
             "caption": _str(body.get("caption")), "filename": _str(body.get("filename"))}
    return {k: v for k, v in media.items() if v is not None or k == "url"}


def _location_text(loc: dict[str, Any]) -> str | None:
    named = ", ".join(p for p in (_str(loc.get("name")), _str(loc.get("address"))) if p)
    if named:
        return named
    lat, lng = loc.get("latitude"), loc.get("longitude")
    return f"{lat},{lng}" if lat is not None and lng is not None else None


def _contacts_text(cards: Any) -> str | None:
    names = [_str(_obj(_obj(c).get("name")).get("formatted_name")) for c in (cards if isinstance(cards, list) else [])]
    return ", ".join(n for n in names if n) or None


def _interactive(body: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    reply = (_obj(body.get(str(body.get("type") or ""))) or _obj(body.get("button_reply"))
             or _obj(body.get("list_reply")))
    return _str(reply.get("title")), body


def parse(message: dict[str, Any]) -> Parsed:
    kind = str(message.get("type") or "unknown")
    body = _obj(message.get(kind))
    if kind == "reaction":
        return Parsed(kind, "react", content=body)
    if kind in ("edit", "revoke"):  # of an earlier message: `original_message_id` (and the new `message`)
        return Parsed(kind, kind, content=body)
    if kind not in STORED_KINDS:
        return Parsed(kind, "ignore")
    content: dict[str, Any] = {}
    text: str | None = None
    media = None
    if kind == "text":
        text = _str(body.get("body"))
    elif kind in MEDIA_KINDS:
        media = _media(kind, body)
        text = _str(body.get("caption"))
    elif kind == "location":
        text, content = _location_text(body), body
    elif kind == "contacts":
        cards = message.get("contacts")
        text, content = _contacts_text(cards), {"contacts": cards if isinstance(cards, list) else []}
    elif kind == "button":
        text, content = _str(body.get("text")), body
    elif kind == "interactive":
        text, content = _interactive(body)
    elif kind == "order":
        text, content = _str(body.get("text")), body
    for extra in ("context", "referral"):
        if isinstance(message.get(extra), dict):
            content[extra] = message[extra]
    return Parsed(kind, "store", _clip(text), media, content or None)


def sent_at(raw: Any, now: datetime | None = None) -> datetime:
    """The provider's Unix-seconds `timestamp` as UTC, never later than now (clock skew); now when absent."""
    now = now or datetime.now(timezone.utc)
    try:
        when = datetime.fromtimestamp(int(str(raw)), timezone.utc)
    except (TypeError, ValueError, OverflowError, OSError):
        return now
    return min(when, now)


def preview(message_type: str, text: str | None, template: dict[str, Any] | None = None) -> str:
    """The conversation row's `lastMessage`: the text, the template name, or `[image]`-style."""
    if text:
        return text[:160]
    if template and template.get("name"):
        return str(template["name"])[:160]
    return f"[{message_type}]"
