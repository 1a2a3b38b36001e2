"""Phone-number text handling shared by every domain (spec: Conventions 5)."""
from __future__ import annotations

import re

_STRIP = re.compile(r"[\s\-()+.]")


def digits_only(raw: str) -> str:
    """Strip `+`, spaces, dashes, dots and parentheses: '+1 (555) 010-2030' -> '15550102030'."""
    return _STRIP.sub("", raw or "")
