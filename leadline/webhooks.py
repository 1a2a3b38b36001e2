"""The chat provider's webhook endpoint, outside /v2.0 and without API keys:
GET answers the subscription handshake, POST verifies `X-Hub-Signature-256`, then acknowledges once
the work is safe: inbound messages and statuses queued to arq (one job per change), template updates
applied inline (resolvers/webhooks/dispatch.py: accept). A failure before that answers 5xx, so the
provider redelivers."""
from __future__ import annotations

import json
import logging

from aiohttp import web

from leadline.app_keys import SERVICES
from leadline.resolvers.errors import ApiError
from leadline.resolvers.webhooks.dispatch import accept
from leadline.resolvers.webhooks.signature import is_valid

log = logging.getLogger("leadline.webhooks")
PATH = "/webhooks/chatapp"


async def verify_subscription(request: web.Request) -> web.Response:
    token = request.app[SERVICES].settings.chatapp_verify_token
    q = request.query
    if q.get("hub.mode") == "subscribe" and token and q.get("hub.verify_token") == token:
        return web.Response(text=q.get("hub.challenge", ""), content_type="text/plain")
    raise ApiError("WEBHOOK_VERIFICATION_FAILED", "The verify token does not match.", status=403)


async def receive(request: web.Request) -> web.Response:
    services = request.app[SERVICES]
    raw = await request.read()
    if not is_valid(services.settings.chatapp_app_secret, raw, request.headers.get("X-Hub-Signature-256")):
        log.warning("webhook refused: bad or missing signature")
        raise ApiError("INVALID_SIGNATURE", "The X-Hub-Signature-256 header is missing or wrong.", status=401)
    try:
        payload = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ApiError("INVALID_JSON", "The webhook body is not valid JSON.") from None
    if not isinstance(payload, dict):
        raise ApiError("INVALID_BODY", "The webhook body must be a JSON object.")
    outcomes = await accept(services, payload)
    log.info("webhook ingested", extra={"outcomes": dict(outcomes), "object": payload.get("object")})
    return web.json_response({"success": True})


def add_webhook_routes(app: web.Application) -> None:
    app.router.add_get(PATH, verify_subscription)
    app.router.add_post(PATH, receive)
