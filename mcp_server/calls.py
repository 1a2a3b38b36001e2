"""One tool call, run exactly as its REST route runs, and its result.

In the order the REST request goes: the session's key is authenticated again and charged one request
against its rate limits (a revoked key, an inactive organisation or an exhausted window refuses the
call), the operation's scope, organisation state and plan feature are checked (before the arguments
are looked at), the arguments are checked as REST checks a decoded body (no NUL character, no unpaired
surrogate), become the route's variables (path, query and body fields by name; an
unknown argument is VALIDATION_ERROR), the free-form JSON values are checked against their limits, and
the route's compiled GraphQL operation executes (the runner: scope, plan limits, tenancy). The reply
function shapes the same envelope REST answers.

The result: the envelope as JSON text and as `structuredContent`; a refusal is a result with
`isError: true` carrying the REST error envelope (same marker, `code`, `message` and extras), never a
protocol error. `_meta` holds the HTTP status REST would have answered (`leadline.dev/status`) and, for
a rate-limit refusal, `leadline.dev/retryAfter` in seconds (REST's `Retry-After` header).
"""
from __future__ import annotations

import json
import logging
import time
import uuid
from typing import Any

import mcp_types as types
from graphql import execute
from strawberry.execution import optimized_is_awaitable

from leadline.logs import request_id_var
from leadline.mcp_server.catalogue import Catalogue, Route, Tool
from leadline.resolvers.auth.authenticate import authenticate, rate_limit_error
from leadline.resolvers.context import Services
from leadline.resolvers.errors import ApiError, internal_error
from leadline.resolvers.json_limits import body_problem
from leadline.resolvers.runner import authorize
from leadline.rest_compat.envelope import error_body
from leadline.rest_compat.handler import to_api_error
from leadline.schema.bindings import SUCCESS_MARKER
from leadline.schema.scalars import check_variables

log = logging.getLogger("leadline.mcp")
STATUS_META = "leadline.dev/status"
RETRY_META = "leadline.dev/retryAfter"


def _dumps(body: Any) -> str:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def tool_result(body: dict[str, Any], status: int, *, error: bool, retry_after: int | None = None) -> types.CallToolResult:
    try:
        text = _dumps(body)
    except UnicodeEncodeError:  # an unpaired surrogate stored before bodies were checked (as REST does)
        text = json.dumps(body, separators=(",", ":"))
    meta: dict[str, Any] = {STATUS_META: status}
    if retry_after is not None:
        meta[RETRY_META] = retry_after
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=body, is_error=error,
                                _meta=meta)


def refusal(err: ApiError, route: Route | None = None) -> types.CallToolResult:
    marker = route.operation.marker if route is not None else SUCCESS_MARKER
    retry = err.headers.get("Retry-After") if err.headers else None
    return tool_result(error_body(err, marker), err.status, error=True,
                       retry_after=int(retry) if retry and retry.isdigit() else None)


async def execute_route(catalogue: Catalogue, route: Route, ctx: Any, variables: dict[str, Any]) -> tuple[dict, int]:
    """The route's compiled operation with these variables: (envelope, status), as rest_compat/handler.py."""
    compiled = route.compiled
    graphql_schema = catalogue.schema._schema
    check_variables(graphql_schema, compiled.document.definitions[0], variables, body_root="input")
    result = execute(graphql_schema, compiled.document, context_value=ctx, variable_values=variables,
                     is_awaitable=optimized_is_awaitable,
                     executor_class=catalogue.schema.execution_context_class)
    if optimized_is_awaitable(result):
        result = await result
    if result.errors:
        raise to_api_error(result.errors[0])
    reply = compiled.binding.reply(result.data[route.operation.name])
    return {"success": True, **reply.body}, reply.status or compiled.binding.status


async def call_tool(services: Services, catalogue: Catalogue, tool: Tool, arguments: dict[str, Any], *,
                    key: str, origin: str | None = None) -> types.CallToolResult:
    """Run `tool` with `arguments` under `key` (held by the caller only in memory) as REST runs its route."""
    request_id = uuid.uuid4().hex
    token = request_id_var.set(request_id)
    started = time.perf_counter()
    route: Route | None = None
    ctx = None
    status = 500
    try:
        try:
            auth = await authenticate(services, f"Bearer {key}", origin, request_id)
            ctx = auth.ctx
            if auth.gate.outcome != "ok":
                raise rate_limit_error(auth.gate)
            route = tool.route_for(arguments)
            authorize(ctx, route.operation.spec)
            if (problem := body_problem(arguments)) is not None:  # NUL characters, unpaired surrogates
                raise problem
            variables = tool.variables(route, arguments)
            body, status = await execute_route(catalogue, route, ctx, variables)
            return tool_result(body, status, error=False)
        except ApiError as err:
            status = err.status
            return refusal(err, route)
        except Exception:
            log.exception("unhandled error in MCP tool %s", tool.name)
            return refusal(internal_error(), route)
    finally:
        log.info("MCP %s %s", tool.name, status, extra={
            "tool": tool.name, "status": status, "duration_ms": round((time.perf_counter() - started) * 1000, 2),
            "org_id": str(ctx.org.id) if ctx and ctx.org else None,
            "key_id": str(ctx.key.id) if ctx and ctx.key else None,
        })
        request_id_var.reset(token)
