"""Page/limit validation and the pagination block every list returns."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from leadline.resolvers.errors import detail, validation_error

T = TypeVar("T")


@dataclass(frozen=True)
class PageRequest:
    page: int
    limit: int

    @property
    def skip(self) -> int:
        return (self.page - 1) * self.limit


@dataclass
class Page(Generic[T]):
    items: list[T]
    page: int
    limit: int
    total: int

    @property
    def pagination(self) -> dict[str, Any]:
        return pagination_block(self.page, self.limit, self.total)


def pagination_block(page: int, limit: int, total: int) -> dict[str, Any]:
    total_pages = math.ceil(total / limit) if limit else 0
    return {"page": page, "limit": limit, "total": total, "totalPages": total_pages, "hasNext": page < total_pages}


def page_request(page: int | None, limit: int | None, *, default: int, maximum: int) -> PageRequest:
    """Out-of-range values are refused with VALIDATION_ERROR, never silently clamped."""
    page = 1 if page is None else page
    limit = default if limit is None else limit
    problems = []
    if page < 1:
        problems.append(detail("page", "OUT_OF_RANGE", "page must be 1 or more"))
    if not 1 <= limit <= maximum:
        problems.append(detail("limit", "OUT_OF_RANGE", f"limit must be between 1 and {maximum}"))
    if problems:
        raise validation_error(problems)
    return PageRequest(page, limit)


def one_of(value: str | None, allowed: tuple[str, ...], path: str, *, upper: bool = False) -> str | None:
    """Validate an enum-like filter; returns the canonical spelling."""
    if value is None:
        return None
    canonical = value.upper() if upper else value
    if canonical not in allowed:
        raise validation_error([detail(path, "INVALID_VALUE", f"{path} must be one of: {', '.join(allowed)}")])
    return canonical
