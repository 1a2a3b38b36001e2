"""Billing and account operations (spec: Endpoints → Billing and account), each declared once."""
from __future__ import annotations

from typing import Annotated

from leadline.resolvers.billing import queries
from leadline.resolvers.context import RequestContext
from leadline.schema.billing.types import PaymentRow, PlanOverview, SubscriptionRow, WalletBalance
from leadline.schema.bindings import McpTool, Reply, Rest, shaped, spread
from leadline.schema.common import Paged, limit_argument, page_argument, paged
from leadline.schema.operations import Operations

ops = Operations("billing")


@shaped(lambda out: {None: {"data": out.with_fields(
    limits=out.map_of(out.field("limits").items.without("key")),
    features=out.map_of(out.field("features").items.field("enabled")))}})
def _plan_reply(result: dict) -> Reply:
    """GraphQL lists limits and features; REST reports them as maps keyed by plan key."""
    data = dict(result)
    data["limits"] = {row.pop("key"): row for row in result["limits"]}
    data["features"] = {row["key"]: row["enabled"] for row in result["features"]}
    return Reply({"data": data})


@ops.query(scope="billing:read", description="The plan, its limits with usage, and its features.",
           rest=Rest("GET", "/v2.0/billing/plan", reply=_plan_reply), mcp=McpTool("get_plan"))
async def billing_plan(ctx: RequestContext) -> PlanOverview:
    return PlanOverview.from_domain(await queries.plan_overview(ctx))


@ops.query(scope="billing:read", description="Subscription history, newest first.",
           rest=Rest("GET", "/v2.0/billing/subscriptions", reply=spread), mcp=McpTool("list_subscriptions"))
async def billing_subscriptions(ctx: RequestContext, status: str | None = None, page: Annotated[int | None, page_argument()] = None,
                                limit: Annotated[int | None, limit_argument(queries.DEFAULT_PAGE, queries.MAX_PAGE)] = None) -> Paged[SubscriptionRow]:
    return paged(await queries.list_subscriptions(ctx, status, page, limit), SubscriptionRow.from_domain)


@ops.query(scope="billing:read", description="Payments, newest first.",
           rest=Rest("GET", "/v2.0/billing/payments", reply=spread), mcp=McpTool("list_payments"))
async def billing_payments(ctx: RequestContext, status: str | None = None, payment_for: str | None = None,
                           page: Annotated[int | None, page_argument()] = None,
                           limit: Annotated[int | None, limit_argument(queries.DEFAULT_PAGE, queries.MAX_PAGE)] = None) -> Paged[PaymentRow]:
    return paged(await queries.list_payments(ctx, status, payment_for, page, limit), PaymentRow.from_domain)


@ops.query(scope="billing:read", description="The prepaid wallet's balance.", errors=("WALLET_NOT_FOUND",),
           rest=Rest("GET", "/v2.0/account/wallet/balance"), mcp=McpTool("get_wallet_balance"))
async def wallet_balance(ctx: RequestContext) -> WalletBalance:
    return WalletBalance.from_domain(await queries.wallet_balance(ctx))
