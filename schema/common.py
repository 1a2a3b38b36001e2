"""Types shared by every domain's schema."""
from __future__ import annotations

import strawberry

from resolvers.pagination import Page


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
