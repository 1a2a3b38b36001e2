"""Types shared by every domain's schema."""
from __future__ import annotations

from typing import Callable, Generic, TypeVar

import strawberry

from leadline.resolvers.pagination import Page

T = TypeVar("T")


@strawberry.type
class Pagination:
    page: int
    limit: int
    total: int
    total_pages: int
    has_next: bool

    @classmethod
    def of(cls, page: Page) -> "Pagination":
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
    return Paged(data=[convert(item) for item in page.items], pagination=Pagination.of(page))


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
