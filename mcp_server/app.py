"""The MCP server of one process: the SDK's low-level server with Leadline's handlers, and its ASGI app.

Routes (all but /health need `Authorization: Bearer <key>`, auth.py):
- `/mcp`: streamable HTTP (the SDK's session manager; sessions are bound to the key that opened them);
- `/sse` (GET) and `/messages/?session_id=…` (POST): the legacy SSE transport;
- `GET /health`: `{"status": "ok"}`, or 503 `{"status": "degraded", "missing": [...]}` as the API's.

Handlers: `tools/list` gives the tools the request's key may call (its scopes); `tools/call` runs one
(calls.py), a tool outside the key's scopes answering an `isError` result with INSUFFICIENT_SCOPE and
`required_scope` (the runner's refusal) and an unknown name a protocol error; `prompts/list` and
`prompts/get` the three playbooks. The services (database, Redis, providers) are the API's when
`leadline up` runs both, or the server's own with `leadline mcp`.
"""
from __future__ import annotations

import logging
from importlib import metadata
from typing import Any

import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.sse import SseServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, INVALID_REQUEST
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from leadline.app import cors_origins, missing_parts
from leadline.config import Settings
from leadline.mcp_server.auth import BearerKeyMiddleware, KeyUser
from leadline.mcp_server.calls import call_tool
from leadline.mcp_server.catalogue import Catalogue
from leadline.mcp_server.prompts import PLAYBOOKS
from leadline.resolvers.context import Services
from leadline.resolvers.errors import ApiError
from leadline.rest_compat.envelope import error_body
from leadline.schema import OPERATIONS, schema

log = logging.getLogger("leadline.mcp")
LOOPBACK = ("127.0.0.1", "localhost", "::1")
# A session with no request in flight for this long is closed (its id then answers 404).
SESSION_IDLE_SECONDS = 30 * 60

INSTRUCTIONS = (
    "Leadline: multi-tenant chat messaging and lead management. Each tool is one /v2.0 REST route and "
    "answers its JSON envelope ({success, data, ...}); a refusal is an isError result with {code, message}. "
    "Read-only tools are marked readOnlyHint. Prompts launch_campaign, triage_inbox and setup_lead_studio "
    "give the order of calls for those jobs."
)


def _version() -> str:
    try:
        return metadata.version("leadline")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a checkout without install
        return "0"


def transport_security(settings: Settings) -> TransportSecuritySettings | None:
    """DNS-rebinding protection (Host and Origin checked) when listening on loopback only."""
    if settings.host not in LOOPBACK:
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*",
                         *[o for o in cors_origins(settings) if o != "*"]],
    )


def _key_user(ctx: Any) -> KeyUser:
    request = getattr(ctx, "request", None)
    user = request.scope.get("user") if request is not None else None
    if not isinstance(user, KeyUser):
        raise MCPError(INVALID_REQUEST, "Connect with 'Authorization: Bearer <API_KEY>'.")
    return user


class McpService:
    """The catalogue (built once), the SDK server and the ASGI app; `services` is set before serving."""

    def __init__(self, settings: Settings, *, strawberry_schema=schema, operations=OPERATIONS) -> None:
        self.settings = settings
        self.services: Services | None = None
        self.catalogue = Catalogue(strawberry_schema, operations)
        self.server = Server("leadline", version=_version(), title="Leadline", instructions=INSTRUCTIONS,
                             get_tool_input_schema=self.catalogue.input_schema,
                             on_list_tools=self.list_tools, on_call_tool=self.call_tool,
                             on_list_prompts=self.list_prompts, on_get_prompt=self.get_prompt)
        security = transport_security(settings)
        self.session_manager = StreamableHTTPSessionManager(app=self.server, security_settings=security,
                                                            session_idle_timeout=SESSION_IDLE_SECONDS)
        self.sse = SseServerTransport("/messages/", security_settings=security)
        self.app = self._asgi_app()

    # --- MCP handlers ---------------------------------------------------------------------------
    async def list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.catalogue.listed_for(_key_user(ctx).ctx.key))

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        user = _key_user(ctx)
        tool = self.catalogue.tools.get(params.name)
        if tool is None:
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {params.name}")
        assert self.services is not None
        origin = ctx.request.headers.get("origin") if ctx.request is not None else None
        return await call_tool(self.services, self.catalogue, tool, dict(params.arguments or {}), key=user.key,
                               origin=origin)

    async def list_prompts(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        _key_user(ctx)
        return types.ListPromptsResult(prompts=[p.prompt for p in PLAYBOOKS.values()])

    async def get_prompt(self, ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        _key_user(ctx)
        playbook = PLAYBOOKS.get(params.name)
        if playbook is None:
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {params.name}")
        return playbook.get(params.arguments)

    # --- HTTP -------------------------------------------------------------------------------------
    async def health(self, request: Request) -> JSONResponse:
        missing = await missing_parts(self.services) if self.services is not None else ["database", "redis"]
        if missing:
            return JSONResponse({"status": "degraded", "missing": missing}, status_code=503)
        return JSONResponse({"status": "ok"})

    async def handle_sse(self, request: Request) -> Response:
        async with self.sse.connect_sse(request.scope, request.receive, request._send) as (read, write):
            await self.server.run(read, write, self.server.create_initialization_options())
        return Response()

    def _asgi_app(self) -> Starlette:
        async def http_error(request: Request, exc: Exception) -> JSONResponse:
            assert isinstance(exc, HTTPException)
            if exc.status_code == 404:
                err = ApiError("NOT_FOUND", f"No endpoint {request.method} {request.url.path}; MCP is at /mcp "
                                            "(streamable HTTP) and /sse.")
            elif exc.status_code == 405:
                err = ApiError("METHOD_NOT_ALLOWED", f"{request.method} is not allowed on {request.url.path}.")
            else:
                err = ApiError("VALIDATION_ERROR", str(exc.detail), status=exc.status_code)
            return JSONResponse(error_body(err), status_code=err.status, headers=getattr(exc, "headers", None))

        routes = [
            Route("/health", self.health, methods=["GET"]),
            Route("/mcp", StreamableHTTPASGIApp(self.session_manager)),
            Route("/sse", self.handle_sse, methods=["GET"]),
            Mount("/messages/", app=self.sse.handle_post_message),
        ]
        origins = list(cors_origins(self.settings))
        middleware = [
            Middleware(CORSMiddleware, allow_origins=origins, allow_methods=["GET", "POST", "DELETE"],
                       allow_headers=["Authorization", "Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version",
                                      "Last-Event-ID"],
                       expose_headers=["Mcp-Session-Id"]),
            Middleware(BearerKeyMiddleware, holder=self),
        ]
        return Starlette(routes=routes, middleware=middleware, exception_handlers={HTTPException: http_error})
