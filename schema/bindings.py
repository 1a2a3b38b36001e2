"""How an operation is exposed besides GraphQL: its REST route and envelope, and its MCP tool.

These are plain descriptions, part of an operation's one declaration (schema/operations.py);
rest_compat compiles the REST ones at start-up and the MCP server lists the tools.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Literal

# Which marker an error body carries: `success: false` (default) or `error: true` (spec Conventions 4).
Marker = Literal["success", "error"]


@dataclass(frozen=True)
class ErrorMarker:
    default: Marker = "success"
    # Codes that carry the other marker within this group.
    error_codes: frozenset[str] = frozenset()

    def marker_for(self, code: str) -> Marker:
        if code == "INSUFFICIENT_SCOPE" or code in self.error_codes:
            return "error"
        return self.default


SUCCESS_MARKER = ErrorMarker()
ERROR_MARKER = ErrorMarker(default="error")


@dataclass(frozen=True)
class Reply:
    """How a route's result becomes the envelope: top-level keys next to `success`, and the status."""

    body: dict[str, Any]
    status: int | None = None  # None: the route's status


# A reply's shape, for the OpenAPI document (rest_compat/openapi.py): given a view of the JSON Schema of
# the operation's output, the envelope parts (keys next to `success`) per status; the status None is the
# route's. The view offers `field(name)`, `items`, `pick(*names, optional=())`, `without(*names)`,
# `with_fields(**parts)`, `map_of(values)`, `const(value)`, `string()`, `boolean()` and `fields()` (every
# field as a part). A custom reply declares its shape with `@shaped(...)`; a route whose reply has none
# stops start-up, so a new envelope cannot go undocumented.
Shape = Callable[[Any], dict]


def shaped(shape: Shape) -> Callable[[Callable[[Any], "Reply"]], Callable[[Any], "Reply"]]:
    """Declares the envelopes a custom reply function produces (see `Shape`)."""
    def mark(reply: Callable[[Any], Reply]) -> Callable[[Any], Reply]:
        reply.shape = shape  # type: ignore[attr-defined]
        return reply
    return mark


@shaped(lambda out: {None: {"data": out}})
def as_data(result: Any) -> Reply:
    """The operation's result is the `data` of the envelope."""
    return Reply({"data": result})


@shaped(lambda out: {None: out.fields()})
def spread(result: dict[str, Any]) -> Reply:
    """The operation returns envelope parts itself (`data`, `meta`, `pagination`, `total`, `message`)."""
    return Reply(dict(result))


@dataclass(frozen=True)
class Rest:
    """A /v2.0 route. The GraphQL document it runs, with every field of the output type selected, is
    generated; path and query parameters and the body map onto the operation's arguments by name.

    `body`: None infers it: "input" (the whole JSON object is the `input` argument) for a POST, PUT or
    PATCH whose operation takes `input`, "fields" (each top-level field to the argument of that name)
    for one that does not, "none" for GET and DELETE.

    `idempotent`: whether the route honours an `Idempotency-Key` header (docs/idempotency.md). None
    infers it: every POST of a mutation (creates, sends, and any future create) does; False opts out.
    """

    method: str
    path: str
    reply: Callable[[Any], Reply] = as_data
    status: int = 200
    body: Literal["none", "input", "fields"] | None = None
    idempotent: bool | None = None


@dataclass(frozen=True)
class McpTool:
    """The MCP tool an operation is. Where one tool covers two operations (a list and a get), the
    second names the argument whose presence selects it in `variant` (e.g. "scheduleId", "type=custom")."""

    name: str
    variant: str | None = None
