"""Read-outs of the plan, its limits and usage, subscriptions, payments and the wallet."""
from __future__ import annotations

import asyncio
from dataclasses import dataclass

from leadline.models.billing import Payment, Subscription, Wallet
from leadline.resolvers.billing.plans import FEATURES, LIMIT_KEYS, UNTRACKED_LIMITS, Plan, plan_for
from leadline.resolvers.billing.usage import count_usage
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.pagination import Page, one_of, page_request

SUBSCRIPTION_STATUSES = ("active", "pending", "past_due", "cancelled", "expired")
PAYMENT_STATUSES = ("PENDING", "SUCCESS", "FAILED")
PAYMENT_PURPOSES = ("subscription", "wallet_topup", "wallet_auto_recharge", "subscription_auto_renew")
DEFAULT_PAGE, MAX_PAGE = 20, 100


@dataclass(frozen=True)
class LimitUsage:
    key: str
    limit: int | None
    used: int | None
    remaining: int | None


@dataclass(frozen=True)
class PlanOverview:
    plan: Plan
    subscription: Subscription | None
    limits: list[LimitUsage]
    features: dict[str, bool]


async def plan_overview(ctx: RequestContext) -> PlanOverview:
    plan = plan_for(ctx.org.plan)
    tracked = [k for k in LIMIT_KEYS if k not in UNTRACKED_LIMITS]
    counts = await asyncio.gather(*(count_usage(ctx.org_id, k, ctx.org.timezone) for k in tracked))
    used = dict(zip(tracked, counts))
    limits = []
    for key in LIMIT_KEYS:
        limit, count = plan.limits[key], used.get(key)
        remaining = None if count is None or limit is None else max(0, limit - count)
        limits.append(LimitUsage(key, limit, count, remaining))
    subscription = await Subscription.find_in(ctx, {"status": "active"}).sort("-created_at").first_or_none()
    return PlanOverview(plan, subscription, limits, {f: f in plan.features for f in FEATURES})


async def list_subscriptions(ctx: RequestContext, status: str | None, page: int | None,
                             limit: int | None) -> Page[Subscription]:
    req = page_request(page, limit, default=DEFAULT_PAGE, maximum=MAX_PAGE)
    status = one_of(status.lower() if status else None, SUBSCRIPTION_STATUSES, "status")
    filt = {"status": status} if status else {}
    return await _page(Subscription, ctx, filt, req)


async def list_payments(ctx: RequestContext, status: str | None, payment_for: str | None, page: int | None,
                        limit: int | None) -> Page[Payment]:
    req = page_request(page, limit, default=DEFAULT_PAGE, maximum=MAX_PAGE)
    filt = {}
    if status:
        filt["status"] = one_of(status, PAYMENT_STATUSES, "status", upper=True)
    if payment_for:
        filt["payment_for"] = one_of(payment_for, PAYMENT_PURPOSES, "paymentFor")
    return await _page(Payment, ctx, filt, req)


async def _page(model, ctx: RequestContext, filt: dict, req) -> Page:
    items, total = await asyncio.gather(
        model.find_in(ctx, filt).sort("-created_at").skip(req.skip).limit(req.limit).to_list(),
        model.count_in(ctx, filt),
    )
    return Page(items, req.page, req.limit, total)


async def wallet_balance(ctx: RequestContext) -> Wallet:
    wallet = await Wallet.find_one_in(ctx)
    if wallet is None:
        raise ApiError("WALLET_NOT_FOUND", "This organisation has no wallet.")
    return wallet
