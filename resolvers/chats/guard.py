"""Unexpected failures inside a chats read become the spec's internal code (logged, no internals)."""
from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Iterator

from resolvers.errors import ApiError, internal_error

log = logging.getLogger("leadline.chats")


@contextmanager
def internal_as(code: str) -> Iterator[None]:
    try:
        yield
    except ApiError:
        raise
    except Exception:
        log.exception("chats: unexpected error (%s)", code)
        raise internal_error(code) from None
