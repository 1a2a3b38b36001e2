"""Limits on client-supplied JSON: free-form values (the GraphQL `JSON` scalar) and whole request bodies.

A free-form value (a contact's `lead_segments` and `customFields`, a template's `example`, and every
later `JSON` field: tool `parameters`, template `components`, campaign `variables`, ...) is stored as
sent, so it must be something the database, the readers and the serialisers all handle:

- at most `MAX_DEPTH` (8) nested objects/arrays;
- at most `MAX_BYTES` (64 KiB) once serialised as compact UTF-8 JSON;
- no key starting with `$` (an operator to the database) or containing `.` (a path separator to it),
  no NUL character in a key or a string.

A query language that checks its own keys (the contact filter: `customFields.budget`, and its clear
refusal of `$where`) passes `query_keys=True`: `$` and `.` are then its business, NUL still is not.
Every check walks iteratively (never recursing on the client's nesting) and reports the first problem
as one `VALIDATION_ERROR` detail with the value's path (`lead_segments.a.b`).

Whole bodies (`body_problem`): JSON text cannot carry a raw NUL or an unpaired UTF-16 surrogate, but
its `\\u0000` and `\\ud800` escapes decode to them; neither is accepted anywhere in a request.
"""
from __future__ import annotations

import json
import re
from typing import Any

from leadline.resolvers.errors import ApiError, detail, validation_error

MAX_DEPTH = 8
MAX_BYTES = 64 * 1024
# Rows written before these limits existed are read while this deep (serialisers recurse per level);
# a deeper one is skipped by the readers (resolvers/contacts/queries.py) instead of failing a page.
READ_MAX_DEPTH = 32
# How much of a client's input an error message may echo, and how long a message may be at all.
ECHO_MAX = 100
MESSAGE_MAX = 500

_SURROGATE = re.compile("[\ud800-\udfff]")
_QUOTED = re.compile(r"'([^']{%d,})'" % (ECHO_MAX + 1))


def clip(value: Any, limit: int = ECHO_MAX) -> str:
    """`value` as text, cut to `limit` characters (with an ellipsis) for echoing in an error message."""
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[:limit] + "…"


def clip_echoes(message: str) -> str:
    """A safety net for messages that quote the input ('...'): each quoted run is cut to ECHO_MAX
    characters and the whole message to MESSAGE_MAX."""
    if len(message) <= ECHO_MAX:
        return message
    return clip(_QUOTED.sub(lambda m: f"'{clip(m.group(1))}'", message), MESSAGE_MAX)


def join(path: str, key: str | int) -> str:
    """`lead_segments` + `a` -> `lead_segments.a`; + 2 -> `lead_segments[2]`; '' + `a` -> `a`."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _key_problem(key: Any, query_keys: bool) -> str | None:
    if not isinstance(key, str):
        return "keys must be strings"
    if key.startswith("$") and not query_keys:
        return "keys must not start with '$'"
    if "." in key and not query_keys:
        return "keys must not contain '.'"
    if "\x00" in key:
        return "keys must not contain a null character (U+0000)"
    return None


def json_problem(value: Any, path: str, *, query_keys: bool = False, max_depth: int = MAX_DEPTH,
                 max_bytes: int | None = MAX_BYTES) -> dict[str, str] | None:
    """The first problem of a free-form value as a `details` entry, or None when it is acceptable."""
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        item, at, depth = stack.pop()
        if isinstance(item, dict):
            if depth >= max_depth:
                return detail(clip(at or "value"), "TOO_DEEP", f"nested deeper than {max_depth} levels")
            for key, member in item.items():
                where = join(at, clip(str(key)))
                if (problem := _key_problem(key, query_keys)) is not None:
                    return detail(where, "INVALID_KEY", problem)
                stack.append((member, where, depth + 1))
        elif isinstance(item, (list, tuple)):
            if depth >= max_depth:
                return detail(clip(at or "value"), "TOO_DEEP", f"nested deeper than {max_depth} levels")
            stack.extend((member, join(at, i), depth + 1) for i, member in enumerate(item))
        elif isinstance(item, str) and "\x00" in item:
            return detail(clip(at or "value"), "INVALID_VALUE", "must not contain a null character (U+0000)")
    if max_bytes is not None:
        size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
                  .encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            return detail(clip(path or "value"), "TOO_LARGE",
                          f"is {size} bytes of JSON; at most {max_bytes} bytes are accepted")
    return None


def check_json(value: Any, path: str, *, query_keys: bool = False) -> None:
    """VALIDATION_ERROR with the offending value's path unless `value` is within the limits above."""
    if value is None:
        return
    if (problem := json_problem(value, path, query_keys=query_keys)) is not None:
        where = problem["path"]
        raise validation_error([problem], f"{where}: {problem['message']}")


def readable(value: Any) -> bool:
    """Whether a stored free-form value can be served: serialisers recurse per level, so only its depth
    matters (sizes and keys were never a danger to reads)."""
    return not _too_deep(value)


def _too_deep(value: Any) -> bool:
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list, tuple)):
            if depth >= READ_MAX_DEPTH:
                return True
            members = item.values() if isinstance(item, dict) else item
            stack.extend((member, depth + 1) for member in members)
    return False


def body_problem(value: Any) -> ApiError | None:
    """A decoded request body's NUL characters (VALIDATION_ERROR with the path) or unpaired surrogates
    (INVALID_JSON), wherever they are; iterative, so any nesting json.loads accepted is fine."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, at = stack.pop()
        if isinstance(item, dict):
            for key, member in item.items():
                where = join(at, clip(key))
                if (problem := _text_problem(key, where)) is not None:
                    return problem
                stack.append((member, where))
        elif isinstance(item, list):
            stack.extend((member, join(at, i)) for i, member in enumerate(item))
        elif isinstance(item, str) and (problem := _text_problem(item, at)) is not None:
            return problem
    return None


def _text_problem(text: str, path: str) -> ApiError | None:
    if _SURROGATE.search(text):
        return ApiError("INVALID_JSON", f"The request body is not valid Unicode: {path or 'a string'} holds an "
                                        "unpaired UTF-16 surrogate escape (e.g. \\ud800).")
    if "\x00" in text:
        where = path or "body"
        return validation_error([detail(where, "INVALID_VALUE", f"{where} must not contain a null character "
                                                                "(U+0000)")])
    return None
