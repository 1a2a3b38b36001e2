"""Subscriptions, payments and wallet read-outs through HTTP, with pagination, filters and isolation."""
from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from bson import ObjectId

from leadline.models.base import utcnow
from leadline.models.billing import Payment, PaymentTax, Subscription
from leadline.resolvers.billing.admin import set_wallet
from leadline.resolvers.billing.plans import PLANS
from tests.helpers import assert_error, make_tenant

SUBS, PAYS, WALLET = "/v2.0/billing/subscriptions", "/v2.0/billing/payments", "/v2.0/account/wallet/balance"


async def _payments(org_id: str, n: int, **fields) -> None:
    base = utcnow()
    for i in range(n):
        await Payment(org_id=ObjectId(org_id), order_id=f"order_{i}", amount=Decimal("59.00"),
                      base_amount=Decimal("50.00"), amount_usd=Decimal("59.00"),
                      tax=PaymentTax(gst=Decimal("9"), gst_percent=Decimal("18"), total_tax=Decimal("9")),
                      created_at=base - timedelta(minutes=i), **fields).insert()


async def test_plan_values_follow_the_catalogue_for_every_plan(api, tenant):
    for plan_id, plan in PLANS.items():
        await tenant.set_plan(plan_id)
        data = (await api.get("/v2.0/billing/plan", tenant.legacy_key)).body["data"]
        assert data["plan"]["name"] == plan.name
        assert {k: v["limit"] for k, v in data["limits"].items()} == plan.limits
        assert {k for k, v in data["features"].items() if v} == set(plan.features)


async def test_subscriptions_list_newest_first_with_status_filter(api, tenant):
    await tenant.set_plan("pro")  # cancels the business subscription, starts a pro one
    resp = await api.get(SUBS, tenant.legacy_key)
    assert resp.status == 200
    rows = resp.body["data"]
    assert [r["plan"]["id"] for r in rows] == ["pro", "business"]
    assert [r["status"] for r in rows] == ["active", "cancelled"]
    assert resp.body["pagination"] == {"page": 1, "limit": 20, "total": 2, "totalPages": 1, "hasNext": False}
    first = rows[0]
    assert set(first) == {"subscriptionId", "plan", "billingCycle", "status", "paymentStatus", "startDate",
                          "endDate", "amountPaid", "currency", "createdAt"}
    assert first["createdAt"].endswith("Z")
    active = await api.get(SUBS, tenant.legacy_key, params={"status": "active"})
    assert [r["plan"]["id"] for r in active.body["data"]] == ["pro"]


async def test_subscription_query_errors(api, tenant):
    assert_error(await api.get(SUBS, tenant.legacy_key, params={"status": "weird"}), 400, "VALIDATION_ERROR")
    assert_error(await api.get(SUBS, tenant.legacy_key, params={"limit": "101"}), 400, "VALIDATION_ERROR")
    assert_error(await api.get(SUBS, tenant.legacy_key, params={"page": "0"}), 400, "VALIDATION_ERROR")
    body = assert_error(await api.get(SUBS, tenant.legacy_key, params={"page": "abc"}), 400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "page"


async def test_payments_pagination_and_filters(api, tenant):
    await _payments(tenant.org_id, 25)
    await _payments(tenant.org_id, 3, status="FAILED", payment_for="wallet_topup")
    page1 = await api.get(PAYS, tenant.legacy_key)
    assert page1.body["pagination"] == {"page": 1, "limit": 20, "total": 28, "totalPages": 2, "hasNext": True}
    page2 = await api.get(PAYS, tenant.legacy_key, params={"page": "2", "limit": "20"})
    assert len(page2.body["data"]) == 8 and page2.body["pagination"]["hasNext"] is False
    ids = {p["paymentId"] for p in page1.body["data"]} | {p["paymentId"] for p in page2.body["data"]}
    assert len(ids) == 28
    failed = await api.get(PAYS, tenant.legacy_key, params={"status": "failed"})
    assert failed.body["pagination"]["total"] == 3
    topups = await api.get(PAYS, tenant.legacy_key, params={"paymentFor": "wallet_topup", "status": "SUCCESS"})
    assert topups.body["pagination"]["total"] == 0
    row = page1.body["data"][0]
    assert row["amount"] == 59.0 and row["amountUSD"] == 59.0 and row["tax"]["gstPercent"] == 18.0
    assert set(row) == {"paymentId", "orderId", "amount", "baseAmount", "amountUSD", "currency", "tax", "status",
                        "paymentFor", "gateway", "subscriptionId", "isRecurring", "createdAt"}
    assert_error(await api.get(PAYS, tenant.legacy_key, params={"paymentFor": "gift"}), 400, "VALIDATION_ERROR")


async def test_wallet(api, tenant):
    assert_error(await api.get(WALLET, tenant.legacy_key), 404, "WALLET_NOT_FOUND")
    await set_wallet(tenant.org_id, "12.345")
    resp = await api.get(WALLET, tenant.legacy_key)
    assert resp.body == {"success": True, "data": {"balance": 12.345, "currency": "USD", "isActive": True}}
    await set_wallet(tenant.org_id, "3", active=False)
    assert (await api.get(WALLET, tenant.legacy_key)).body["data"]["isActive"] is False


async def test_billing_data_is_isolated_between_organisations(api, client, tenant):
    other = await make_tenant(client, name="Other")
    await _payments(tenant.org_id, 2)
    await set_wallet(tenant.org_id, "10")
    assert (await api.get(PAYS, other.legacy_key)).body["pagination"]["total"] == 0
    assert_error(await api.get(WALLET, other.legacy_key), 404, "WALLET_NOT_FOUND")
    subs = (await api.get(SUBS, other.legacy_key)).body["data"]
    assert len(subs) == 1 and all(s["subscriptionId"] != "" for s in subs)
    mine = await Subscription.find_in(ObjectId(tenant.org_id)).to_list()
    assert {s["subscriptionId"] for s in subs}.isdisjoint({str(s.id) for s in mine})


async def test_billing_needs_billing_read(api, tenant):
    key = await tenant.key("contacts:read")
    for path in ("/v2.0/billing/plan", SUBS, PAYS, WALLET):
        body = assert_error(await api.get(path, key), 403, "INSUFFICIENT_SCOPE", marker="error")
        assert body["required_scope"] == "billing:read"
