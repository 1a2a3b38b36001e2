"""Billing root fields: thin calls into resolvers.billing."""
from __future__ import annotations

import strawberry
from strawberry.types import Info

from leadline.resolvers.billing import queries
from leadline.schema.billing.types import PaymentRow, PlanOverview, SubscriptionRow, WalletBalance
from leadline.schema.common import Paged, paged
from leadline.schema.permissions import needs


@strawberry.type
class BillingQuery:
    @strawberry.field(permission_classes=needs("billing:read"), description="Plan, limits with usage, features.")
    async def billing_plan(self, info: Info) -> PlanOverview:
        return PlanOverview.from_domain(await queries.plan_overview(info.context))

    @strawberry.field(permission_classes=needs("billing:read"))
    async def billing_subscriptions(self, info: Info, status: str | None = None, page: int | None = None,
                                    limit: int | None = None) -> Paged[SubscriptionRow]:
        return paged(await queries.list_subscriptions(info.context, status, page, limit), SubscriptionRow.from_model)

    @strawberry.field(permission_classes=needs("billing:read"))
    async def billing_payments(self, info: Info, status: str | None = None, payment_for: str | None = None,
                               page: int | None = None, limit: int | None = None) -> Paged[PaymentRow]:
        return paged(await queries.list_payments(info.context, status, payment_for, page, limit),
                     PaymentRow.from_model)

    @strawberry.field(permission_classes=needs("billing:read"))
    async def wallet_balance(self, info: Info) -> WalletBalance:
        return WalletBalance.from_model(await queries.wallet_balance(info.context))
