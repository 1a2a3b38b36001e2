"""Billing types and their explicit conversion from domain objects."""
from __future__ import annotations

from datetime import datetime

import strawberry

from leadline.models.billing import Payment, Subscription, Wallet
from leadline.resolvers.billing import queries
from leadline.schema.common import graphql_only, money


@strawberry.type
class PlanPricing:
    currency: str
    monthly: float
    yearly: float


@strawberry.type
class PlanInfo:
    id: str = graphql_only(description="The plan key (free, growth, pro, business); REST names the plan only.")
    name: str
    description: str
    pricing: PlanPricing


@strawberry.type
class PlanLimit:
    key: str
    limit: int | None
    used: int | None
    remaining: int | None


@strawberry.type
class PlanFeature:
    key: str
    enabled: bool


@strawberry.type
class SubscriptionPlan:
    id: str
    name: str


@strawberry.type
class SubscriptionRow:
    subscription_id: str
    plan: SubscriptionPlan
    billing_cycle: str
    status: str
    payment_status: str
    start_date: datetime
    end_date: datetime | None
    amount_paid: float
    currency: str
    created_at: datetime

    @classmethod
    def from_domain(cls, s: Subscription) -> "SubscriptionRow":
        return cls(subscription_id=str(s.id), plan=SubscriptionPlan(id=s.plan_id, name=s.plan_name),
                   billing_cycle=s.billing_cycle, status=s.status, payment_status=s.payment_status,
                   start_date=s.start_date, end_date=s.end_date, amount_paid=money(s.amount_paid),
                   currency=s.currency, created_at=s.created_at)


@strawberry.type
class PlanOverview:
    plan: PlanInfo
    subscription: SubscriptionRow | None
    limits: list[PlanLimit]
    features: list[PlanFeature]

    @classmethod
    def from_domain(cls, o: queries.PlanOverview) -> "PlanOverview":
        p = o.plan
        return cls(
            plan=PlanInfo(id=p.id, name=p.name, description=p.description,
                          pricing=PlanPricing(currency="USD", monthly=p.monthly_price, yearly=p.yearly_price)),
            subscription=SubscriptionRow.from_domain(o.subscription) if o.subscription else None,
            limits=[PlanLimit(key=u.key, limit=u.limit, used=u.used, remaining=u.remaining) for u in o.limits],
            features=[PlanFeature(key=k, enabled=v) for k, v in o.features.items()],
        )


@strawberry.type
class PaymentTax:
    gst: float
    gst_percent: float
    transaction_charge: float
    transaction_charge_percent: float
    total_tax: float


@strawberry.type
class PaymentRow:
    payment_id: str
    order_id: str
    amount: float
    base_amount: float
    amount_usd: float = strawberry.field(name="amountUSD")
    currency: str
    tax: PaymentTax
    status: str
    payment_for: str
    gateway: str
    subscription_id: str | None
    is_recurring: bool
    created_at: datetime

    @classmethod
    def from_domain(cls, p: Payment) -> "PaymentRow":
        t = p.tax
        return cls(payment_id=str(p.id), order_id=p.order_id, amount=money(p.amount),
                   base_amount=money(p.base_amount), amount_usd=money(p.amount_usd), currency=p.currency,
                   tax=PaymentTax(gst=money(t.gst), gst_percent=money(t.gst_percent),
                                  transaction_charge=money(t.transaction_charge),
                                  transaction_charge_percent=money(t.transaction_charge_percent),
                                  total_tax=money(t.total_tax)),
                   status=p.status, payment_for=p.payment_for, gateway=p.gateway,
                   subscription_id=str(p.subscription_id) if p.subscription_id else None,
                   is_recurring=p.is_recurring, created_at=p.created_at)


@strawberry.type
class WalletBalance:
    balance: float
    currency: str
    is_active: bool

    @classmethod
    def from_domain(cls, w: Wallet) -> "WalletBalance":
        return cls(balance=money(w.balance), currency=w.currency, is_active=w.is_active)
