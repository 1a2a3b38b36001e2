"""Coercion of a contact's custom field values by their definition's type.

Every problem is collected into one VALIDATION_ERROR with a `details` entry per key, and a key with
no definition is refused rather than dropped.
"""
from __future__ import annotations

import math
import re
from datetime import date, datetime, timezone
from typing import Any
from urllib.parse import urlparse

from leadline.models.contacts import CustomField
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.json_limits import clip
from leadline.resolvers.phones import try_normalize_phone

_SPLIT = re.compile(r"[,|;]")
_TRUE, _FALSE = {"true", "yes", "1", "y", "on"}, {"false", "no", "0", "n", "off"}
MAX_TEXT = 2000


class Invalid(ValueError):
    """A value that does not fit its type; the message completes "<key> (<type>) ..."."""


_Invalid = Invalid


def text_value(value: Any) -> str:
    """A string, number or the like as trimmed text (at most MAX_TEXT characters)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise Invalid("must be a string")
    text = str(value).strip()
    if len(text) > MAX_TEXT:
        raise Invalid(f"must be at most {MAX_TEXT} characters")
    return text


def number_value(value: Any) -> int | float:
    """A finite number, or a string of one (thousands separators allowed); integral values as int."""
    if isinstance(value, bool):
        raise Invalid("must be a number")
    if isinstance(value, str):
        try:
            value = float(value.strip().replace(",", "")) if value.strip() else None
        except ValueError:
            raise Invalid("must be a number") from None
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        raise Invalid("must be a number")
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else float(value)


def _text(value: Any, field: CustomField, country_code: str | None) -> str:
    return text_value(value)


def _number(value: Any, field: CustomField, country_code: str | None) -> int | float:
    return number_value(value)


def _boolean(value: Any, field: CustomField, country_code: str | None) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise _Invalid("must be true or false")


def _date(value: Any, field: CustomField, country_code: str | None) -> str:
    """'YYYY-MM-DD' stays a date; a date-time becomes UTC ISO 8601 with `Z`."""
    if not isinstance(value, str) or not value.strip():
        raise _Invalid("must be a date (YYYY-MM-DD) or an ISO 8601 date-time")
    text = value.strip()
    try:
        if len(text) == 10:
            return date.fromisoformat(text).isoformat()
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise _Invalid("must be a date (YYYY-MM-DD) or an ISO 8601 date-time") from None
    moment = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _url(value: Any, field: CustomField, country_code: str | None) -> str:
    text = value.strip() if isinstance(value, str) else ""
    parsed = urlparse(text)
    if parsed.scheme not in ("http", "https") or not parsed.netloc or len(text) > MAX_TEXT:
        raise _Invalid("must be an http(s) URL")
    return text


def _phone(value: Any, field: CustomField, country_code: str | None) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise _Invalid("must be a phone number")
    normalized = try_normalize_phone(str(value), country_code)
    if normalized is None:
        raise _Invalid("must be a valid phone number")
    return normalized


def _choice(value: Any, field: CustomField) -> str:
    if not isinstance(value, str):
        raise _Invalid("must be one of the field's options")
    by_lower = {o.lower(): o for o in field.options}
    chosen = by_lower.get(value.strip().lower())
    if chosen is None:
        raise _Invalid(f"'{clip(value)}' is not one of: {clip(', '.join(field.options), 300)}")
    return chosen


def _dropdown(value: Any, field: CustomField, country_code: str | None) -> str:
    return _choice(value, field)


def _multiselect(value: Any, field: CustomField, country_code: str | None) -> list[str]:
    """An array of options, or one string split on commas, pipes or semicolons."""
    members = _SPLIT.split(value) if isinstance(value, str) else value
    if not isinstance(members, list):
        raise _Invalid("must be an array of options or a string separated by , | or ;")
    picked = [_choice(m, field) for m in members if not (isinstance(m, str) and not m.strip())]
    return list(dict.fromkeys(picked))


COERCE = {"text": _text, "number": _number, "boolean": _boolean, "date": _date, "url": _url,
          "phone": _phone, "dropdown": _dropdown, "multiselect": _multiselect}


def coerce_custom_fields(raw: Any, definitions: dict[str, CustomField],
                         country_code: str | None) -> dict[str, Any]:
    """{key: stored value}; a null value means "remove this key". Not an object: INVALID_CUSTOM_FIELDS."""
    if not isinstance(raw, dict):
        raise ApiError("INVALID_CUSTOM_FIELDS", "customFields must be a plain JSON object keyed by fieldKey.")
    out: dict[str, Any] = {}
    problems = []
    for key, value in raw.items():
        path = f"customFields.{clip(key)}"
        field = definitions.get(key)
        if field is None:
            problems.append(detail(path, "UNKNOWN_CUSTOM_FIELD",
                                   f"'{clip(key)}' is not a custom field of this organisation; create it first"))
            continue
        if value is None:
            out[key] = None
            continue
        try:
            out[key] = COERCE[field.fieldType](value, field, country_code)
        except _Invalid as exc:
            problems.append(detail(path, "INVALID_VALUE", f"{clip(key)} ({field.fieldType}) {exc}"))
    if problems:
        raise validation_error(problems, f"customFields has {len(problems)} invalid entr"
                                         f"{'y' if len(problems) == 1 else 'ies'}: {problems[0]['message']}")
    return out
