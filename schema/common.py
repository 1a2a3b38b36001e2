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
