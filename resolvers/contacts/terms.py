"""Exact-match keys of a contact's filterable values, the shape SecantusDB can index.

Every exact filter clause (a number, a boolean, an array of values, a tag, a custom field value)
becomes one string `<org>|<field>|<type>:<value>`, looked up in the multikey `terms` index.
SecantusDB has no wildcard index, so this one array serves every `customFields.{key}` too.
The organisation prefix lets a filter with several clauses be narrowed by the `terms` index alone.
"""
from __future__ import annotations

import hashlib
from typing import Any, Iterable

from bson import ObjectId

# Built-in fields whose values get a term (every filterable field but phone, which has its own index).
TERM_FIELDS = ("countryCode", "contactName", "email", "platform", "businessName", "city", "state",
               "postalCode", "country", "source", "lead_category", "optedOut", "auto_added")
_MAX_INLINE = 96


def encode_value(value: Any) -> str | None:
    """`s:text`, `n:5`, `b:1`; None for values a filter cannot name (objects, null)."""
    if isinstance(value, bool):
        return f"b:{int(value)}"
    if isinstance(value, (int, float)):
        number = int(value) if float(value).is_integer() else value
        return f"n:{number!r}"
    if isinstance(value, ObjectId):
        return f"o:{value}"
    if isinstance(value, str):
        if len(value) > _MAX_INLINE:
            return "h:" + hashlib.sha1(value.encode()).hexdigest()
        return f"s:{value}"
    return None


def term(org_id: ObjectId, field: str, value: Any) -> str | None:
    encoded = encode_value(value)
    return None if encoded is None else f"{org_id}|{field}|{encoded}"


def _members(value: Any) -> Iterable[Any]:
    return value if isinstance(value, list) else [value]


def contact_terms(org_id: ObjectId, values: dict[str, Any]) -> list[str]:
    """The terms of one contact, from its stored values (spec names, plus `tags` and `customFields`)."""
    out: list[str] = []
    for field in TERM_FIELDS:
        if values.get(field) is not None:
            out.append(term(org_id, field, values[field]))
    for tag_id in values.get("tags") or ():
        out.append(term(org_id, "tags", ObjectId(tag_id)))
    for key, value in (values.get("customFields") or {}).items():
        for member in _members(value):
            out.append(term(org_id, f"customFields.{key}", member))
    return sorted({t for t in out if t is not None})
