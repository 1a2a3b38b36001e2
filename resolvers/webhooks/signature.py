"""`X-Hub-Signature-256`: `sha256=` + hex HMAC-SHA256 of the raw body with the app secret."""
from __future__ import annotations

import hashlib
import hmac

PREFIX = "sha256="


def sign(secret: str, raw: bytes) -> str:
    return PREFIX + hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()


def is_valid(secret: str, raw: bytes, header: str | None) -> bool:
    """False without a configured secret, so an unconfigured service accepts nothing."""
    if not secret or not header or not header.startswith(PREFIX):
        return False
    return hmac.compare_digest(sign(secret, raw), header.strip())
