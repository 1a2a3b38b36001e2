"""The contact filter language of POST /v2.0/contacts/filter, turned into one index-friendly query dict.

Rules (spec): allowed fields only; a string is a case-insensitive regular expression matched anywhere;
an array matches any member exactly; a number or boolean matches exactly; `customFields.{key}`.
Added here: `tags` (a tag id or an array of them). Objects are refused, so no operator can be injected.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bson import ObjectId

from leadline.resolvers.contacts.fields import FIELD_KEY
from leadline.resolvers.contacts.patterns import unsafe
from leadline.resolvers.contacts.ids import object_id
from leadline.resolvers.contacts.terms import term
from leadline.resolvers.errors import detail, validation_error
from leadline.resolvers.phones import digits_only

STRING_FIELDS = ("phone", "countryCode", "contactName", "email", "platform", "businessName", "city", "state",
                 "postalCode", "country", "source", "lead_category")
BOOLEAN_FIELDS = ("optedOut", "auto_added")
ALLOWED_FIELDS = (*STRING_FIELDS, *BOOLEAN_FIELDS)
MAX_PATTERN, MAX_MEMBERS, MAX_CLAUSES = 200, 100, 20


@dataclass
class _Clause:
    path: str
    query: Any
    terms: list[str] = field(default_factory=list)
    rank: int = 9  # which exact clause drives the index lookup: tags, custom values, fields, booleans


class _Bad(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _pattern(path: str, value: str) -> dict[str, str]:
    if not value:
        raise _Bad("INVALID_VALUE", f"{path}: an empty pattern matches nothing useful; omit the field")
    if len(value) > MAX_PATTERN:
        raise _Bad("TOO_LONG", f"{path}: a pattern is at most {MAX_PATTERN} characters")
    try:
        re.compile(value)
    except re.error as exc:
        raise _Bad("INVALID_PATTERN", f"{path}: invalid regular expression ({exc})") from None
    if (problem := unsafe(value)) is not None:
        raise _Bad("UNSAFE_PATTERN", f"{path}: {problem}")
    return {"$regex": value, "$options": "i"}


def _members(path: str, value: list, kinds: tuple[type, ...]) -> list[Any]:
    if not value:
        raise _Bad("INVALID_VALUE", f"{path}: an array needs at least one value")
    if len(value) > MAX_MEMBERS:
        raise _Bad("TOO_LONG", f"{path}: an array holds at most {MAX_MEMBERS} values")
    for member in value:
        if isinstance(member, (dict, list)) or member is None or not isinstance(member, kinds) \
                or (bool not in kinds and isinstance(member, bool)):
            names = "/".join(k.__name__ for k in kinds).replace("str", "string").replace("bool", "boolean")
            raise _Bad("INVALID_VALUE", f"{path}: array values must be {names}")
    return list(dict.fromkeys(member for member in value))


def _exact(org_id: ObjectId, path: str, members: list[Any], rank: int) -> _Clause:
    query = members[0] if len(members) == 1 else {"$in": members}
    terms = [term(org_id, path, m) for m in members] if path != "phone" else []
    return _Clause(path, query, terms, rank)


def _clause(org_id: ObjectId, path: str, value: Any) -> _Clause:
    if isinstance(value, dict):
        raise _Bad("OPERATOR_NOT_ALLOWED", f"{path}: objects (operators) are not allowed; use a string, "
                                           "a number, a boolean or an array of values")
    if value is None:
        raise _Bad("INVALID_VALUE", f"{path}: null is not a filter value")
    if path == "tags":
        raw = value if isinstance(value, list) else [value]
        if not all(isinstance(t, str) for t in raw):
            raise _Bad("INVALID_VALUE", "tags takes a tag id or an array of tag ids")
        ids = [object_id(t, "INVALID_TAG_ID", "filter.tags") for t in raw]
        return _exact(org_id, path, _members(path, ids, (ObjectId,)), 0)
    custom = path.startswith("customFields.")
    if path in BOOLEAN_FIELDS:
        if isinstance(value, list):
            return _exact(org_id, path, _members(path, value, (bool,)), 3)
        if not isinstance(value, bool):
            raise _Bad("INVALID_VALUE", f"{path} takes true or false")
        return _exact(org_id, path, [value], 3)
    if isinstance(value, str):
        return _Clause(path, _pattern(path, value))
    if isinstance(value, list):
        kinds = (str, int, float, bool) if custom else (str,)
        members = _members(path, value, kinds)
        if path == "phone":
            members = [digits_only(m) for m in members]
        return _exact(org_id, path, members, 1 if custom else 2)
    if custom and isinstance(value, (bool, int, float)):
        return _exact(org_id, path, [value], 1)
    raise _Bad("INVALID_VALUE", f"{path} takes a string (pattern) or an array of strings")


def _allowed(path: str) -> bool:
    if path in ALLOWED_FIELDS or path == "tags":
        return True
    return path.startswith("customFields.") and bool(FIELD_KEY.match(path.split(".", 1)[1]))


def build_filter(org_id: ObjectId, raw: Any) -> dict[str, Any]:
    """One merged query dict (never `$and`), organisation included.

    The most selective exact clause goes first as a `terms` lookup: alone with `org_id` it is served by
    the (org_id, terms) index; with more clauses SecantusDB narrows by the first clause's index
    (`terms`), and checks the rest on those candidates only.
    """
    if raw is None:
        return {"org_id": org_id}
    if not isinstance(raw, dict):
        raise validation_error([detail("filter", "INVALID_TYPE", "filter must be a JSON object")])
    if len(raw) > MAX_CLAUSES:
        raise validation_error([detail("filter", "TOO_LONG", f"filter has at most {MAX_CLAUSES} fields")])
    clauses, problems = [], []
    for path, value in raw.items():
        if not _allowed(path):
            problems.append(detail(f"filter.{path}", "UNKNOWN_FILTER_FIELD",
                                   f"'{path}' cannot be filtered on; allowed: {', '.join(ALLOWED_FIELDS)}, "
                                   "tags, customFields.{key}"))
            continue
        try:
            clauses.append(_clause(org_id, path, value))
        except _Bad as exc:
            problems.append(detail(f"filter.{path}", exc.code, str(exc)))
    if problems:
        raise validation_error(problems)
    indexed = [c for c in clauses if c.terms]
    if not indexed:
        return {"org_id": org_id, **{c.path: c.query for c in clauses}}
    lead = min(indexed, key=lambda c: c.rank)
    lookup = lead.terms[0] if len(lead.terms) == 1 else {"$in": lead.terms}
    return {"terms": lookup, "org_id": org_id, **{c.path: c.query for c in clauses if c is not lead}}
