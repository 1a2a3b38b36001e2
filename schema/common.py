"""Types shared by every domain's schema: one page type, one listed type, money, GraphQL-only fields.

Converter naming, everywhere: an output type builds itself with `Type.from_domain(value)` from what
the domain code returns (model or domain object); an input type hands the domain code `input.to_domain()`.
"""
from __future__ import annotations

from typing import Any, Callable, Generic, TypeVar

import strawberry

from leadline.resolvers.pagination import Page

T = TypeVar("T")

# Field metadata key: the field is GraphQL-only, left out of the REST (and MCP) output.
GRAPHQL_ONLY = "leadline.graphql_only"


# Field and argument metadata key: JSON Schema bounds of the value (`minimum`, `maximum`, `minLength`,
# `maxLength`, `pattern`, `enum`) and its `default`, as the REST OpenAPI document (and the MCP tools)
# publish them. The domain code still checks its own values; declare the same constants here.
BOUNDS = "leadline.bounds"


def bounds(**keywords: Any) -> dict[str, Any]:
    """Metadata for `strawberry.argument(metadata=...)` or `strawberry.field(metadata=...)`:
    `bounds(minimum=1, maximum=100, default=50)`, `bounds(enum=["a", "b"])`, `bounds(maxLength=32000)`."""
    allowed = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern",
               "enum", "default", "minItems", "maxItems"}
    unknown = set(keywords) - allowed
    if unknown:
        raise ValueError(f"unknown bounds {sorted(unknown)}")
    return {BOUNDS: keywords}


def page_argument() -> Any:
    """`page: Annotated[int | None, page_argument()] = None`: 1-based, default 1."""
    return strawberry.argument(description="1-based page number (default 1).", metadata=bounds(minimum=1, default=1))


def limit_argument(default: int, maximum: int) -> Any:
    """`limit: Annotated[int | None, limit_argument(DEFAULT, MAX)] = None`, with the domain's own constants."""
    return strawberry.argument(description=f"Page size, 1 to {maximum} (default {default}).",
                               metadata=bounds(minimum=1, maximum=maximum, default=default))


def graphql_only(**field_kwargs: Any) -> Any:
    """A field dashboards can select but the generated REST selections leave out (the REST shape is fixed)."""
    return strawberry.field(metadata={GRAPHQL_ONLY: True}, **field_kwargs)


@strawberry.type
class Pagination:
    page: int
    limit: int
    total: int
    total_pages: int
    has_next: bool

    @classmethod
    def from_domain(cls, page: Page) -> "Pagination":
        block = page.pagination
        return cls(page=block["page"], limit=block["limit"], total=block["total"],
                   total_pages=block["totalPages"], has_next=block["hasNext"])


def money(value) -> float | None:
    """Decimals are stored exactly and reported as JSON numbers."""
    return None if value is None else float(value)


@strawberry.type
class Paged(Generic[T]):
    """One page of a list: `data` and `pagination` (REST spreads both into the envelope)."""

    data: list[T]
    pagination: Pagination


def paged(page: Page, convert: Callable) -> Paged:
    return Paged(data=[convert(item) for item in page.items], pagination=Pagination.from_domain(page))


@strawberry.type
class ListMeta:
    total: int


@strawberry.type
class Listed(Generic[T]):
    """A whole (unpaginated) list: `data` and `meta {total}` (REST spreads both into the envelope)."""

    data: list[T]
    meta: ListMeta


def listed(items: list, convert: Callable) -> Listed:
    return Listed(data=[convert(item) for item in items], meta=ListMeta(total=len(items)))
