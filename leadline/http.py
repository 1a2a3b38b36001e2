"""HTTP middlewares (request ids and logs, the error envelope, request size limits, authentication and
rate limits) and the /graphql view.

Size limits: aiohttp's parser is given room (`PARSER_LIMITS`, leadline/app.py) so that a long URL or
header reaches `request_middleware`, which refuses it in the JSON envelope: a URL over `MAX_URL_BYTES`
is 414 URI_TOO_LONG, a header over `MAX_HEADER_BYTES` or headers over `MAX_HEADERS_BYTES` in all are 431
HEADERS_TOO_LARGE. Past the parser's own limits (1 MiB a line) aiohttp answers a plain 400 itself.

GraphQL subscriptions run over a websocket on /graphql (graphql-transport-ws): the upgrade itself needs
no header (browsers cannot set one); the key travels in `connection_init`'s payload
(`{"Authorization": "Bearer <key>"}`) and is authenticated as the HTTP middleware does. A refusal
closes the socket with 4403 (4429 for the rate limit) before any data is sent.
"""
from __future__ import annotations

import logging
import re
import time
import uuid
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from aiohttp import web
from cross_web import HTTPException
from graphql import GraphQLError, OperationType, get_operation_ast, parse
from strawberry.aiohttp.views import GraphQLView
from strawberry.exceptions import ConnectionRejectionError
from strawberry.schema.exceptions import InvalidOperationTypeError
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import BaseGraphQLTransportWSHandler
from strawberry.types import ExecutionResult
from strawberry.types.unset import UNSET

from leadline.app_keys import SERVICES, SETTINGS
from leadline.logs import request_id_var
from leadline.resolvers.auth.authenticate import authenticate, rate_limit_error
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, internal_error
from leadline.resolvers.json_limits import clip
from leadline.rest_compat.envelope import error_response
from leadline.rest_compat.handler import load_json
from leadline.rest_compat.openapi import OPENAPI_PATH
from leadline.rest_compat.request_keys import CTX, MARKER, RATE_HEADERS, REQUEST_ID
from leadline.schema import MAX_TOKENS
from leadline.schema.bindings import SUCCESS_MARKER

log = logging.getLogger("leadline.http")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
API_PREFIX = "/v2.0"
GRAPHQL_PATH = "/graphql"

MAX_URL_BYTES = 8 * 1024
MAX_HEADER_BYTES = 8 * 1024
MAX_HEADERS_BYTES = 32 * 1024
PARSER_LIMITS = {"max_line_size": 1024 * 1024, "max_field_size": 1024 * 1024}


def is_websocket_upgrade(request: web.Request) -> bool:
    return request.method == "GET" and request.headers.get("Upgrade", "").lower() == "websocket"


def _needs_auth(request: web.Request) -> bool:
    path = request.path
    if request.method == "OPTIONS":
        return False
    if path == API_PREFIX or path.startswith(API_PREFIX + "/"):
        if path == OPENAPI_PATH:
            return False  # the OpenAPI document is public
        return request.match_info.http_exception is None
    if path == GRAPHQL_PATH:
        if is_websocket_upgrade(request):
            return False  # authenticated by connection_init (LeadlineGraphQLView.on_ws_connect)
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


def check_request_size(request: web.Request) -> None:
    """414 for a URL over MAX_URL_BYTES; 431 for a header over MAX_HEADER_BYTES or over MAX_HEADERS_BYTES
    of headers in all."""
    if len(request.raw_path) > MAX_URL_BYTES:
        raise ApiError("URI_TOO_LONG", f"The URL is longer than {MAX_URL_BYTES} bytes.")
    total = 0
    for name, value in request.raw_headers:
        size = len(name) + len(value)
        total += size + 4
        if size > MAX_HEADER_BYTES or total > MAX_HEADERS_BYTES:
            raise ApiError("HEADERS_TOO_LARGE", f"A header is longer than {MAX_HEADER_BYTES} bytes or the headers "
                                                f"exceed {MAX_HEADERS_BYTES} bytes in all.")


@web.middleware
async def request_middleware(request: web.Request, handler):
    """Outermost: request id, one log line per request, and every error as the JSON envelope."""
    incoming = request.headers.get("X-Request-Id", "")
    request_id = incoming if _REQUEST_ID.match(incoming) else uuid.uuid4().hex
    request[REQUEST_ID] = request_id
    token = request_id_var.set(request_id)
    started = time.perf_counter()
    status = 500
    graphql = request.path == GRAPHQL_PATH
    try:
        try:
            check_request_size(request)
            response = await handler(request)
        except ApiError as err:
            response = error_response(err, request.get(MARKER, SUCCESS_MARKER), graphql=graphql)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            response = error_response(_http_error(exc, request), request.get(MARKER, SUCCESS_MARKER), graphql=graphql)
        except Exception:
            log.exception("unhandled error")
            response = error_response(internal_error(), request.get(MARKER, SUCCESS_MARKER), graphql=graphql)
        status = response.status
        return response
    finally:
        ctx = request.get(CTX)
        path = clip(request.path, 200)
        log.info("%s %s %s", request.method, path, status, extra={
            "method": request.method, "path": path, "status": status,
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


# --- /graphql ---------------------------------------------------------------------------------------
GRAPHQL_REFUSAL = web.RequestKey("graphql_refusal", tuple)
_BATCH_REASONS = ("Batching is not enabled", "Too many operations")


def _graphql_http_error(exc: HTTPException, request: web.Request) -> ApiError:
    """Strawberry's plain-text refusals as the JSON envelope."""
    cause = exc.__cause__
    if isinstance(cause, InvalidOperationTypeError):
        kind = cause.operation_type.value
        if kind == "subscription":
            return _subscription_over_http()
        return ApiError("METHOD_NOT_ALLOWED", f"A {kind} cannot be sent with {request.method}; send it with POST.",
                        headers={"Allow": "POST"})
    if exc.reason in _BATCH_REASONS:
        return ApiError("INVALID_BODY", "Send one GraphQL operation per request: batches (a JSON array) are not "
                                        "accepted.")
    if exc.status_code == 404:
        return ApiError("NOT_FOUND", f"No endpoint {request.method} {clip(request.path)}.")
    if exc.status_code == 405:
        return ApiError("METHOD_NOT_ALLOWED", f"{request.method} is not allowed on {GRAPHQL_PATH}.",
                        headers={"Allow": "GET, POST"})
    if exc.reason == "Unsupported content type":
        return ApiError("UNSUPPORTED_MEDIA_TYPE", "Send the body as JSON with 'Content-Type: application/json'.")
    if exc.reason.startswith("The GraphQL operation's"):
        return ApiError("INVALID_BODY", exc.reason)
    return ApiError("VALIDATION_ERROR", clip(exc.reason), status=exc.status_code if exc.status_code >= 400 else 400)


def _refusal(result: ExecutionResult) -> tuple[int, dict[str, str]] | None:
    """(status, headers) when GraphQL refused the request as a whole (nothing ran: no error has a path),
    as opposed to errors of fields that ran (200, with whatever data there is)."""
    errors = result.errors or []
    if result.data is not None or not errors or any(e.path is not None for e in errors):
        return None
    first = errors[0]
    original = first.original_error
    if isinstance(original, ApiError):
        return original.status, original.headers
    status = (first.extensions or {}).get("status")
    return (status if isinstance(status, int) and status >= 400 else 400), {}


def _subscription_over_http() -> ApiError:
    return ApiError("VALIDATION_ERROR", "Subscriptions run over a websocket on /graphql (subprotocol "
                                        "graphql-transport-ws), not over HTTP.")


@lru_cache(maxsize=256)
def _operation_type(query: str, operation_name: str | None) -> OperationType | str:
    """The document's operation type, or why it has none (a syntax error, too many tokens, no such operation)."""
    try:
        document = parse(query, max_tokens=MAX_TOKENS)
    except GraphQLError as err:
        return err.message[:300]
    operation = get_operation_ast(document, operation_name)
    if operation is None:
        return "The document must hold one operation, or operationName must name one of its operations."
    return operation.operation


def _is_subscription(query: str, operation_name: str | None) -> bool:
    return _operation_type(query, operation_name) == OperationType.SUBSCRIPTION


class SubscriptionsOnlyHandler(BaseGraphQLTransportWSHandler):
    """graphql-transport-ws for subscriptions only: a query or mutation sent over the socket would escape the
    per-request rate limit and request logging of HTTP, so it gets the protocol's `error` message
    (VALIDATION_ERROR) and runs nothing; it belongs on POST /graphql."""

    async def handle_subscribe(self, message: Any) -> None:
        payload = message.get("payload") if isinstance(message, dict) else None
        query = payload.get("query") if isinstance(payload, dict) else None
        name = payload.get("operationName") if isinstance(payload, dict) else None
        kind = _operation_type(query, name if isinstance(name, str) else None) if isinstance(query, str) else None
        if self.connection_acknowledged and kind is not None and kind != OperationType.SUBSCRIPTION \
                and message.get("id") not in self.operations:
            reason = kind if isinstance(kind, str) else \
                f"A {kind.value} is sent with POST /graphql; this socket carries subscriptions only."
            error = GraphQLError(reason, extensions={"code": "VALIDATION_ERROR", "status": 400})
            await self.send_message({"id": message["id"], "type": "error", "payload": [error.formatted]})
            return
        await super().handle_subscribe(message)


@dataclass
class SocketContext(RequestContext):
    """A websocket's request context: no organisation or key until `connection_init` authenticates one
    (Strawberry stores that message's payload in `connection_params`)."""

    connection_params: dict[str, Any] | None = None
    origin: str | None = None
    socket: web.WebSocketResponse | None = field(default=None, repr=False)


class LeadlineGraphQLView(GraphQLView):
    """Strawberry's aiohttp view with the service's body decoding (load_json: depth, surrogates, NUL),
    its refusals in the JSON envelope, and a 4xx status when GraphQL refuses the request as a whole;
    subscriptions over websockets authenticated by `connection_init`."""

    graphql_transport_ws_handler_class = SubscriptionsOnlyHandler

    async def get_context(self, request: web.Request, response: Any) -> Any:
        if isinstance(response, web.WebSocketResponse):
            return SocketContext(services=request.app[SERVICES], org=None, key=None, request_id=request[REQUEST_ID],
                                 origin=request.headers.get("Origin"), socket=response)
        return request.get(CTX)

    async def execute_single(self, request, request_adapter, sub_response, context, root_value, request_data):
        # Strawberry would run a subscription over HTTP as a one-shot query (null); the service's run over
        # the websocket only. Documents without the word skip the check.
        query = request_data.query
        if isinstance(query, str) and "subscription" in query and _is_subscription(query, request_data.operation_name):
            raise _subscription_over_http()
        return await super().execute_single(request, request_adapter, sub_response, context, root_value, request_data)

    async def on_ws_connect(self, context: SocketContext) -> Any:
        """Authenticate the key of `connection_init`'s payload as the HTTP middleware does; a refusal
        closes the socket (4403; 4429 for the rate limit) and nothing else is sent."""
        params = context.connection_params if isinstance(context.connection_params, dict) else {}
        header = params.get("Authorization", params.get("authorization"))
        try:
            auth = await authenticate(context.services, header if isinstance(header, str) else None, context.origin,
                                      context.request_id)
        except ApiError as err:
            log.info("websocket refused: %s", err.code, extra={"code": err.code})
            raise ConnectionRejectionError() from None
        if auth.gate.outcome != "ok":
            error = rate_limit_error(auth.gate)
            if context.socket is not None:
                await context.socket.close(code=4429, message=error.code.encode())
            raise ConnectionRejectionError()
        context.org, context.key, context.org_token = auth.ctx.org, auth.ctx.key, auth.ctx.org_token
        return UNSET

    def decode_json(self, data: str | bytes) -> object:
        return load_json(data)

    @property
    def graphql_ide_html(self) -> str:
        """GraphiQL with the Authorization header prefilled with a placeholder (leadline/apidocs.py)."""
        from leadline.apidocs import graphiql_page

        return graphiql_page(super().graphql_ide_html)

    async def process_result(self, request: web.Request, result: ExecutionResult):
        if (refusal := _refusal(result)) is not None:
            request[GRAPHQL_REFUSAL] = refusal
        return await super().process_result(request, result)

    async def run(self, request, context=UNSET, root_value=UNSET):  # type: ignore[override]
        response = await super().run(request, context, root_value)
        if (refusal := request.get(GRAPHQL_REFUSAL)) is not None and isinstance(response, web.Response):
            status, headers = refusal
            response.set_status(status)
            response.headers.update(headers)
        return response

    async def __call__(self, request: web.Request) -> web.StreamResponse:
        try:
            return await self.run(request)
        except HTTPException as exc:
            raise _graphql_http_error(exc, request) from None
