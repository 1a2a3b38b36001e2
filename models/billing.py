"""Subscriptions, payments and the prepaid wallet of an organisation (read-outs only)."""
from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from beanie import PydanticObjectId
from pydantic import BaseModel, Field
from pymongo import ASCENDING, DESCENDING, IndexModel

from leadline.models.base import Money, TenantDocument


class Subscription(TenantDocument):
    plan_id: str
    plan_name: str
    billing_cycle: str = "monthly"
    status: str = "active"
    payment_status: str = "paid"
    start_date: datetime
    end_date: datetime | None = None
    amount_paid: Money = Decimal("0")
    currency: str = "USD"

    class Settings:
        name = "subscriptions"
        indexes = [
            IndexModel([("org_id", ASCENDING), ("created_at", DESCENDING)]),
            IndexModel([("org_id", ASCENDING), ("status", ASCENDING), ("created_at", DESCENDING)]),
        ]


class PaymentTax(BaseModel):
    gst: Money = Decimal("0")
    gst_percent: Money = Decimal("0")
    transaction_charge: Money = Decimal("0")
    transaction_charge_percent: Money = Decimal("0")
    total_tax: Money = Decimal("0")


class Payment(TenantDocument):
    order_id: str
    amount: Money
    base_amount: Money
    amount_usd: Money
    currency: str = "USD"
    tax: PaymentTax = Field(default_factory=PaymentTax)
    status: str = "SUCCESS"
    payment_for: str = "subscription"
    gateway: str = "manual"
    subscription_id: PydanticObjectId | None = None
    is_recurring: bool = False

    class Settings:
        name = "payments"
        indexes = [
            IndexModel([("org_id", ASCENDING), ("created_at", DESCENDING)]),
            IndexModel([("org_id", ASCENDING), ("status", ASCENDING), ("created_at", DESCENDING)]),
            IndexModel([("org_id", ASCENDING), ("payment_for", ASCENDING), ("created_at", DESCENDING)]),
            IndexModel([("org_id", ASCENDING), ("status", ASCENDING), ("payment_for", ASCENDING),
                        ("created_at", DESCENDING)]),
        ]


class Wallet(TenantDocument):
    balance: Money = Decimal("0")
    currency: str = "USD"
    is_active: bool = True

    class Settings:
        name = "wallets"
        indexes = [IndexModel([("org_id", ASCENDING)], unique=True)]
