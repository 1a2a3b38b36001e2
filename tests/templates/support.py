"""Shared by the templates and webhooks tests: settings, a connected number, bodies, signed webhooks."""
from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

from leadline.config import Settings
from leadline.resolvers.channels.admin import connect_channel
from leadline.resolvers.webhooks.signature import sign

BRAND = "15550001111"
APP_SECRET = "test-app-secret"
VERIFY_TOKEN = "test-verify-token"


def template_settings(settings: Settings, **overrides: Any) -> Settings:
    return replace(settings, sandbox_template_review_seconds=0.2, chatapp_app_secret=APP_SECRET,
                   chatapp_verify_token=VERIFY_TOKEN, template_media_max_bytes=64 * 1024,
                   template_media_timeout=1.0, **overrides)


async def connect_brand(tenant, number: str = BRAND, review_status: str = "APPROVED", **kw: Any) -> str:
    await connect_channel(tenant.org_id, "chatapp", number, "Acme", review_status, **kw)
    return number


def marketing(**overrides: Any) -> dict[str, Any]:
    """A valid MARKETING template using every part; overrides replace top-level fields (None removes)."""
    body: dict[str, Any] = {
        "brandNumber": BRAND, "name": "summer_sale", "language": "en_US", "category": "MARKETING",
        "header": {"format": "TEXT", "text": "Hello {{1}}", "exampleVariables": ["Ann"]},
        "body": {"text": "Hi {{1}}, your order {{2}} ships today.", "exampleVariables": ["Ann", "A-17"]},
        "footer": {"text": "Reply STOP to opt out"},
        "buttons": [
            {"type": "QUICK_REPLY", "text": "Yes"},
            {"type": "QUICK_REPLY", "text": "No"},
            {"type": "URL", "text": "Track", "url": "https://shop.example.com/track/{{1}}", "exampleUrlSuffix": "A-17"},
            {"type": "PHONE_NUMBER", "text": "Call us", "phone_number": "+15550002222"},
            {"type": "COPY_CODE", "example": "SUMMER10"},
        ],
    }
    for key, value in overrides.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return copy.deepcopy(body)


def authentication(**auth: Any) -> dict[str, Any]:
    return {"brandNumber": BRAND, "name": "login_code", "language": "en", "category": "AUTHENTICATION",
            "auth": {"otp_type": "COPY_CODE", "add_security_recommendation": True, "code_expiration_minutes": 10,
                     **auth}}


def signed(payload: Any, secret: str = APP_SECRET) -> tuple[bytes, dict[str, str]]:
    raw = json.dumps(payload).encode()
    return raw, {"Content-Type": "application/json", "X-Hub-Signature-256": sign(secret, raw)}


def status_update(template_id: str, event: str, *, time: int = 1751247548, reason: str = "NONE",
                  **extra: Any) -> dict[str, Any]:
    """A `message_template_status_update` webhook in the Cloud API shape (fixture layout)."""
    value = {"event": event, "message_template_id": int(template_id), "message_template_name": "x",
             "message_template_language": "en_US", "reason": reason, **extra}
    return {"object": "whatsapp_business_account",
            "entry": [{"id": "102290129340398", "time": time,
                       "changes": [{"value": value, "field": "message_template_status_update"}]}]}
