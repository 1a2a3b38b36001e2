"""Field definitions: one description of each tool field that both validates payloads and is published
by `GET /v2.0/tools/schema` (so the schema cannot drift from the rules).

A `FieldDef` says a field's JSON type, whether it is required, its default, allowed values, bounds,
pattern, nested fields or items, and an example of a valid value. `check` applies the definition to a
value and reports every problem into a `Report` (`details[{path, code, message, example?}]`).
"""
from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from leadline.resolvers.json_limits import clip
from leadline.resolvers.secrets import MASK, is_sealed


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()

JSON_TYPES = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
              "object": "an object", "array": "an array"}


@dataclass(frozen=True)
class FieldDef:
    name: str
    kind: str  # string, integer, number, boolean, object, array, or json (any JSON value)
    description: str
    required: bool = False
    default: Any = MISSING
    enum: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    pattern: str | None = None
    pattern_hint: str = ""
    items: "FieldDef | None" = None
    fields: tuple["FieldDef", ...] = ()
    secret: bool = False
    example: Any = MISSING
    # Shown in the schema when the rule is more than the attributes say ("required when type is bearer").
    note: str = ""

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "type": self.kind, "required": self.required,
                               "description": self.description}
        if self.default is not MISSING:
            out["default"] = self.default
        for key, value in (("enum", list(self.enum) or None), ("minimum", self.minimum), ("maximum", self.maximum),
                           ("maxLength", self.max_length), ("minItems", self.min_items),
                           ("maxItems", self.max_items), ("pattern", self.pattern), ("note", self.note or None)):
            if value is not None:
                out[key] = value
        if self.secret:
            out["secret"] = True
        if self.fields:
            out["fields"] = [f.describe() for f in self.fields]
        if self.items is not None:
            out["items"] = self.items.describe()
        if self.example is not MISSING:
            out["example"] = self.example
        return out


@dataclass
class Report:
    """The problems found, in the order the rules ran. `prefix` starts every message (`Message 2: `)."""

    details: list[dict[str, Any]] = field(default_factory=list)
    prefix: str = ""

    def add(self, path: str, code: str, message: str, example: Any = MISSING) -> None:
        entry: dict[str, Any] = {"path": path, "code": code, "message": self.prefix + message}
        if example is not MISSING:
            entry["example"] = example
        self.details.append(entry)

    def with_prefix(self, prefix: str) -> "Report":
        return Report(self.details, prefix)


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def each_object(report: Report, items: list, path: str, limit: int) -> Iterator[tuple[str, dict]]:
    """(path, item) for the first `limit` items that are objects; any other item is reported."""
    for i, item in enumerate(items[:limit]):
        where = join(path, i)
        if isinstance(item, dict):
            yield where, item
        else:
            report.add(where, "INVALID_TYPE", f"{where} must be an object")


def type_ok(kind: str, value: Any) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    return True


def check(fd: FieldDef, value: Any, path: str, report: Report) -> None:
    """Every rule of `fd` on `value` (MISSING or None: absent)."""
    if value is MISSING or value is None:
        if fd.required:
            report.add(path, "REQUIRED", f"{path} is required", fd.example)
        return
    if not type_ok(fd.kind, value):
        report.add(path, "INVALID_TYPE", f"{path} must be {JSON_TYPES[fd.kind]}", fd.example)
        return
    if fd.kind == "string":
        _check_string(fd, value, path, report)
    elif fd.kind in ("integer", "number"):
        if (fd.minimum is not None and value < fd.minimum) or (fd.maximum is not None and value > fd.maximum):
            report.add(path, "OUT_OF_RANGE", f"{path} must be between {_num(fd.minimum)} and {_num(fd.maximum)}",
                       fd.example)
    elif fd.kind == "array":
        if fd.min_items is not None and len(value) < fd.min_items:
            report.add(path, "TOO_FEW", f"{path} needs at least {fd.min_items} item(s)", fd.example)
        if fd.max_items is not None and len(value) > fd.max_items:
            report.add(path, "TOO_MANY", f"{path} holds at most {fd.max_items} item(s)", fd.example)
        if fd.items is not None:
            for i, item in enumerate(value[:fd.max_items or len(value)]):
                check(fd.items, item, join(path, i), report)
    elif fd.kind == "object":
        for sub in fd.fields:
            check(sub, value.get(sub.name, MISSING), join(path, sub.name), report)


def _check_string(fd: FieldDef, value: str, path: str, report: Report) -> None:
    if fd.secret and is_sealed(value):
        return
    if fd.secret and value == MASK:
        report.add(path, "MASKED_VALUE", f"{path}: send the secret itself (the mask only keeps a stored one)")
        return
    if fd.required and not value.strip():
        report.add(path, "REQUIRED", f"{path} must not be empty", fd.example)
        return
    if fd.max_length is not None and len(value) > fd.max_length:
        report.add(path, "TOO_LONG", f"{path} is at most {fd.max_length} characters", fd.example)
        return
    if fd.enum and value not in fd.enum:
        report.add(path, "INVALID_VALUE", f"{path} must be one of: {', '.join(fd.enum)} (got '{clip(value)}')",
                   fd.example if fd.example is not MISSING else fd.enum[0])
        return
    if fd.pattern and not re.fullmatch(fd.pattern, value):
        report.add(path, "INVALID_FORMAT", f"{path} {fd.pattern_hint or 'must match ' + fd.pattern}", fd.example)


def _num(value: float | None) -> str:
    if value is None:
        return "any"
    return str(int(value)) if float(value).is_integer() else str(value)


def with_defaults(fd: FieldDef, value: Any) -> Any:
    """`value` with the defaults of absent (nested) fields filled in."""
    if value is MISSING or value is None:
        return None if fd.default is MISSING else copy.deepcopy(fd.default)
    if fd.kind == "object" and fd.fields and isinstance(value, dict):
        out = dict(value)
        for sub in fd.fields:
            filled = with_defaults(sub, value.get(sub.name, MISSING))
            if filled is not None or sub.name in value:
                out[sub.name] = filled
        return out
    if fd.kind == "array" and fd.items is not None and isinstance(value, list):
        return [with_defaults(fd.items, item) for item in value]
    return value
