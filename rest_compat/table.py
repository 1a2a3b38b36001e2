"""What a REST route is: method, path, scope, GraphQL operation, variable mapping, envelope, marker.

Each domain lists its routes in rest_compat/routes/<domain>.py; ROUTES collects them.
Variables come from path parameters, query parameters and the body, matched by name to the
operation's variable definitions (`body="input"` passes the whole JSON object as `$input`,
`body="fields"` passes each top-level body field to the variable of the same name).
"""
from __future__ import annotations

from dataclasses import dataclass, field
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


def as_data(result: Any) -> Reply:
    """The operation's result is the `data` of the envelope."""
    return Reply({"data": result})


def spread(result: dict[str, Any]) -> Reply:
    """The operation returns envelope parts itself (`data`, `meta`, `pagination`, `total`, `message`)."""
    return Reply(dict(result))


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    scope: str
    operation: str
    summary: str
    body: Literal["none", "input", "fields"] = "none"
    reply: Callable[[Any], Reply] = as_data
    status: int = 200
    marker: ErrorMarker = SUCCESS_MARKER
    tags: tuple[str, ...] = field(default_factory=tuple)
