"""Standard Webhooks signatures: endpoint secrets, the signed content and the three headers.

A secret is `whsec_` + base64 of 24 random bytes; the key is those bytes. The signature of one attempt
is `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`; with two live secrets (a
rotation's first 24 hours) the header holds both, space-separated, so a receiver holding either verifies.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import secrets as random

PREFIX = "whsec_"
SECRET_BYTES = 24


def new_secret() -> str:
    return PREFIX + base64.b64encode(random.token_bytes(SECRET_BYTES)).decode()


def key_of(secret: str) -> bytes:
    raw = secret.removeprefix(PREFIX)
    return base64.b64decode(raw + "=" * (-len(raw) % 4))


def signature(keys: list[bytes], msg_id: str, timestamp: int, body: str) -> str:
    content = f"{msg_id}.{timestamp}.{body}".encode()
    return " ".join("v1," + base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode()
                    for key in keys)


def headers(keys: list[bytes], msg_id: str, timestamp: int, body: str) -> dict[str, str]:
    return {"content-type": "application/json", "user-agent": "Leadline-Webhooks/1.0", "webhook-id": msg_id,
            "webhook-timestamp": str(timestamp), "webhook-signature": signature(keys, msg_id, timestamp, body)}
