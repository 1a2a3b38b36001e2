"""A contact filter evaluated in Python on a contact's stored row, with the database's semantics.

`build_filter` (filters.py) turns the filter language into one query dict; `matcher` turns the same
dict into a predicate, so code that streams an organisation's contacts over an index (campaign
audiences: resolvers/campaigns/audience.py) applies segment and advanced filters without one query per
filter, and without collection scans. The shapes are exactly those build_filter produces: `terms`
(one term or `$in`), a field equal to a value, a field `$in` values, a field `$regex` with options.
A field holding an array matches when any element does, as in the database.
"""
from __future__ import annotations

import re
from typing import Any, Callable

Predicate = Callable[[dict[str, Any]], bool]


def _values(doc: dict[str, Any], path: str) -> list[Any]:
    value: Any = doc
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return [None]
        value = value[part]
    return list(value) if isinstance(value, list) else [value]


def _clause(path: str, condition: Any) -> Predicate:
    if path == "terms":
        wanted = set(condition["$in"]) if isinstance(condition, dict) else {condition}
        return lambda doc: not wanted.isdisjoint(doc.get("terms") or ())
    if isinstance(condition, dict) and "$regex" in condition:
        flags = re.IGNORECASE if "i" in condition.get("$options", "") else 0
        pattern = re.compile(condition["$regex"], flags)
        return lambda doc: any(isinstance(v, str) and pattern.search(v) for v in _values(doc, path))
    if isinstance(condition, dict) and "$in" in condition:
        members = condition["$in"]
        return lambda doc: any(_equal(v, m) for v in _values(doc, path) for m in members)
    return lambda doc: any(_equal(v, condition) for v in _values(doc, path))


def _equal(value: Any, wanted: Any) -> bool:
    # True == 1 in Python, not in the database.
    return value == wanted and isinstance(value, bool) == isinstance(wanted, bool)


def matcher(query: dict[str, Any]) -> Predicate:
    """A predicate for a build_filter query (its `org_id` is the caller's to scope)."""
    clauses = [_clause(path, condition) for path, condition in query.items() if path != "org_id"]
    return lambda doc: all(clause(doc) for clause in clauses)
