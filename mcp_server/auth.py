"""The API key on every MCP request: checked at connect and on each message, held only in memory.

Every HTTP request to `/mcp`, `/sse` and `/messages/` carries `Authorization: Bearer <key>`. The key is
identified as REST authenticates it (resolvers/auth/authenticate.py: `identify`, which does not charge
the rate limits; each tool call is charged as one request): a missing, unknown or revoked key, an
inactive organisation, a refused origin or a plan without `mcp_access` answers the REST error envelope
with its status (401 for the key, 403 otherwise) and no session is created. Otherwise the request's ASGI scope carries a `KeyUser`: the key's
snapshot (organisation, kind, scopes) and the raw key, which lives only as long as that request (the
tool call re-authenticates with it). The SDK binds each session to the key that opened it (the key's id
and organisation), so a session id presented with another key is unknown (404).

The key is never logged or stored; log lines name the key's id.
"""
from __future__ import annotations

import logging
import uuid

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.authentication import AuthCredentials
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from leadline.resolvers.auth.authenticate import bearer_token, identify
from leadline.resolvers.billing.plans import require_feature
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.rest_compat.envelope import error_body

log = logging.getLogger("leadline.mcp")
PROTECTED = ("/mcp", "/sse", "/messages")
MCP_FEATURE = "mcp_access"  # the plan flag for MCP connections (every current plan has it)


class KeyUser(AuthenticatedUser):
    """The key a request was authenticated with: its snapshot (`ctx`) and the raw key (this request only)."""

    def __init__(self, ctx: RequestContext, key: str) -> None:
        assert ctx.key is not None and ctx.org is not None
        super().__init__(AccessToken(token="", client_id=str(ctx.key.id), scopes=sorted(ctx.key.scopes),
                                     subject=str(ctx.org.id)))
        self.ctx = ctx
        self.key = key


def is_protected(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in PROTECTED)


def refusal_response(err: ApiError) -> JSONResponse:
    headers = dict(err.headers or {})
    if err.status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="leadline"'
    return JSONResponse(error_body(err), status_code=err.status, headers=headers)


class BearerKeyMiddleware:
    """Pure ASGI (streams pass through untouched); `holder.services` is read per request."""

    def __init__(self, app: ASGIApp, holder) -> None:
        self.app = app
        self.holder = holder

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] == "OPTIONS" or not is_protected(scope["path"]):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        authorization = headers.get("authorization")
        try:
            ctx = await identify(self.holder.services, authorization, headers.get("origin"), uuid.uuid4().hex)
            require_feature(ctx, MCP_FEATURE)
        except ApiError as err:
            log.info("MCP connection refused: %s", err.code, extra={"code": err.code, "path": scope["path"]})
            await refusal_response(err)(scope, receive, send)
            return
        except Exception:
            log.exception("MCP authentication failed")
            err = ApiError("AUTHENTICATION_FAILED", "Authentication could not be completed; try again.")
            await refusal_response(err)(scope, receive, send)
            return
        user = KeyUser(ctx, bearer_token(authorization) or "")
        scope["user"] = user
        scope["auth"] = AuthCredentials(user.scopes)
        await self.app(scope, receive, send)
