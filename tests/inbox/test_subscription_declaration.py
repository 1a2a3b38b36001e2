"""`ops.subscription` (schema/operations.py): what a declaration must be, and the runner's checks before the
first item, for a direct call as for the GraphQL field."""
from __future__ import annotations

from typing import AsyncGenerator

import pytest
from bson import ObjectId

from leadline.resolvers.auth.snapshots import KeySnapshot, OrgSnapshot
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.runner import DeclarationError
from leadline.schema.bindings import McpTool, Rest
from leadline.schema.operations import Operations

ops = Operations("subscription-test")
started: list[str] = []


@ops.subscription(scope="conversations:read", description="counts", feature="team_inbox", errors=("TEAM_NOT_FOUND",))
async def counts(ctx: RequestContext, upto: int = 2, fail: str | None = None) -> AsyncGenerator[int, None]:
    started.append("started")
    if fail:
        raise ApiError(fail, "refused")
    for i in range(upto):
        yield i


def ctx_of(services, scopes=("conversations:read",), plan="business") -> RequestContext:
    return RequestContext(services=services, org=OrgSnapshot(ObjectId(), "Acme", plan, "UTC", True, ()),
                          key=KeySnapshot(ObjectId(), "scoped", frozenset(scopes), "test"))


def test_a_subscription_is_an_async_generator_without_route_or_tool():
    local = Operations("x")
    with pytest.raises(TypeError, match="async generator"):
        @local.subscription(scope="conversations:read", description="not a generator")
        async def plain(ctx: RequestContext) -> int:
            return 1
    for binding in ({"rest": Rest("GET", "/v2.0/x")}, {"mcp": McpTool("x")}):
        with pytest.raises(DeclarationError, match="no REST route or MCP tool"):
            @local.subscription(scope="conversations:read", description="bound", **binding)
            async def bound(ctx: RequestContext) -> AsyncGenerator[int, None]:
                yield 1


async def test_the_checks_run_before_the_first_item(services):
    started.clear()
    for ctx, code in ((ctx_of(services, scopes=("chats:read",)), "INSUFFICIENT_SCOPE"),
                      (ctx_of(services, plan="free"), "FEATURE_NOT_ENABLED")):
        with pytest.raises(ApiError) as err:
            await counts(ctx)
        assert err.value.code == code
    assert started == []
    assert [i async for i in await counts(ctx_of(services), upto=3)] == [0, 1, 2]


async def test_codes_raised_while_streaming_are_checked_against_the_declaration(services):
    with pytest.raises(ApiError, match="refused"):
        [i async for i in await counts(ctx_of(services), fail="TEAM_NOT_FOUND")]
    with pytest.raises(DeclarationError, match="CONTACT_NOT_FOUND"):
        [i async for i in await counts(ctx_of(services), fail="CONTACT_NOT_FOUND")]
