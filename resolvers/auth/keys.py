"""Key material: generating secrets, recognising their format, hashing them for storage."""
from __future__ import annotations

import hashlib
import re
import secrets

SCOPED_PREFIX = "sk_"
_LEGACY = re.compile(r"^[0-9a-f]{64}$")
_SCOPED = re.compile(r"^sk_[A-Za-z0-9_-]{32,128}$")


def hash_key(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def looks_like_key(raw: str) -> bool:
    """Cheap format check, so garbage never reaches the database."""
    return bool(_SCOPED.match(raw) or _LEGACY.match(raw))


def new_scoped_key() -> str:
    return SCOPED_PREFIX + secrets.token_urlsafe(36)


def new_legacy_key() -> str:
    return secrets.token_hex(32)


def display_prefix(raw: str) -> str:
    return raw[:10] if raw.startswith(SCOPED_PREFIX) else raw[:6]
