"""HTTP middlewares: request ids and logs, the error envelope, authentication and rate limits."""
from __future__ import annotations

import logging
import re
import time
import uuid

from aiohttp import web

from leadline.app_keys import SERVICES, SETTINGS
from leadline.logs import request_id_var
from leadline.resolvers.auth.authenticate import authenticate, rate_limit_error
from leadline.resolvers.errors import ApiError, internal_error
from leadline.rest_compat.envelope import error_response
from leadline.rest_compat.request_keys import CTX, MARKER, RATE_HEADERS, REQUEST_ID
from leadline.schema.bindings import SUCCESS_MARKER

log = logging.getLogger("leadline.http")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
API_PREFIX = "/v2.0"
GRAPHQL_PATH = "/graphql"


def _needs_auth(request: web.Request) -> bool:
    path = request.path
    if request.method == "OPTIONS":
        return False
    if path == API_PREFIX or path.startswith(API_PREFIX + "/"):
        return request.match_info.http_exception is None
    if path == GRAPHQL_PATH:
        # The GraphiQL page itself (a browser GET for HTML) needs no key; its queries do.
        wants_html = request.method == "GET" and "text/html" in request.headers.get("Accept", "")
        return not (wants_html and request.app[SETTINGS].is_development)
    return False


def _http_error(exc: web.HTTPException, request: web.Request) -> ApiError:
    if exc.status == 404:
        return ApiError("NOT_FOUND", f"No endpoint {request.method} {request.path}.")
    if exc.status == 405:
        allowed = sorted(getattr(exc, "allowed_methods", ()) or ())
        return ApiError("METHOD_NOT_ALLOWED", f"{request.method} is not allowed on {request.path}.",
                        headers={"Allow": ", ".join(allowed)})
    if exc.status == 413:
        return ApiError("PAYLOAD_TOO_LARGE", "The request body is too large.")
    code = {400: "VALIDATION_ERROR", 415: "UNSUPPORTED_MEDIA_TYPE"}.get(exc.status, "INTERNAL_SERVER_ERROR")
    return ApiError(code, exc.reason or "Request refused.", status=exc.status)


@web.middleware
async def request_middleware(request: web.Request, handler):
    """Outermost: request id, one log line per request, and every error as the JSON envelope."""
    incoming = request.headers.get("X-Request-Id", "")
    request_id = incoming if _REQUEST_ID.match(incoming) else uuid.uuid4().hex
    request[REQUEST_ID] = request_id
    token = request_id_var.set(request_id)
    started = time.perf_counter()
    status = 500
    try:
        try:
            response = await handler(request)
        except ApiError as err:
            response = error_response(err, request.get(MARKER, SUCCESS_MARKER))
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            response = error_response(_http_error(exc, request), request.get(MARKER, SUCCESS_MARKER))
        except Exception:
            log.exception("unhandled error")
            response = error_response(internal_error(), request.get(MARKER, SUCCESS_MARKER))
        status = response.status
        return response
    finally:
        ctx = request.get(CTX)
        log.info("%s %s %s", request.method, request.path, status, extra={
            "method": request.method, "path": request.path, "status": status,
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
            "org_id": str(ctx.org.id) if ctx and ctx.org else None,
            "key_id": str(ctx.key.id) if ctx and ctx.key else None,
        })
        request_id_var.reset(token)


@web.middleware
async def auth_middleware(request: web.Request, handler):
    if not _needs_auth(request):
        return await handler(request)
    services = request.app[SERVICES]
    auth = await authenticate(services, request.headers.get("Authorization"), request.headers.get("Origin"),
                              request[REQUEST_ID])
    request[CTX] = auth.ctx
    request[RATE_HEADERS] = auth.gate.headers()
    if auth.gate.outcome != "ok":
        raise rate_limit_error(auth.gate)
    return await handler(request)


async def add_common_headers(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: every response carries its request id and, once authenticated, rate headers."""
    if REQUEST_ID in request:
        response.headers["X-Request-Id"] = request[REQUEST_ID]
    for name, value in request.get(RATE_HEADERS, {}).items():
        response.headers.setdefault(name, value)
