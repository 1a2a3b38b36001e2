"""Tenancy is enforced by the base document, and hot lookups use indexes (SecantusDB explain)."""
from __future__ import annotations

import pytest
from bson import ObjectId

from leadline.models.auth import ApiKey
from leadline.models.base import TenancyError
from leadline.models.billing import Payment, Subscription, Wallet
from leadline.models.channels import ChannelAccount
from tests.helpers import winning_plan



def test_unscoped_queries_are_refused():
    with pytest.raises(TenancyError):
        Wallet.find({"balance": 1})
    with pytest.raises(TenancyError):
        ChannelAccount.find_one({"_id": ObjectId()})
    with pytest.raises(TenancyError):
        Payment.aggregate([{"$match": {"status": "SUCCESS"}}])


async def test_instance_operations_stay_in_their_organisation(client, tenant):
    org = ObjectId(tenant.org_id)
    wallet = Wallet(org_id=org)
    await wallet.insert()
    wallet.balance = 5
    await wallet.save()  # Beanie's own find by _id, scoped to the instance's organisation
    assert (await Wallet.find_one_in(org)).balance == 5
    assert await Wallet.get_in(ObjectId(), wallet.id) is None  # another organisation: not found


@pytest.mark.parametrize("model, filter, sort", [
    (ApiKey, {"key_hash": "ab" * 32}, None),
    (ApiKey, {"org_id": ObjectId(), "kind": "scoped", "revoked_at": None}, None),
    (Subscription, {"org_id": ObjectId(), "status": "active"}, [("created_at", -1)]),
    (Payment, {"org_id": ObjectId(), "status": "FAILED"}, [("created_at", -1)]),
    (Payment, {"org_id": ObjectId(), "payment_for": "wallet_topup"}, [("created_at", -1)]),
    (Wallet, {"org_id": ObjectId()}, None),
    (Payment, {"org_id": ObjectId(), "status": "FAILED", "payment_for": "wallet_topup"}, [("created_at", -1)]),
    (ChannelAccount, {"org_id": ObjectId()}, [("created_at", 1)]),
    (ChannelAccount, {"provider_phone_number_id": "123"}, None),
])
async def test_hot_queries_use_an_index(client, model, filter, sort):
    plan = await winning_plan(model, filter, sort)
    assert "IXSCAN" in plan and "COLLSCAN" not in plan, plan


async def test_get_in_uses_an_index_on_every_organisation_owned_collection(client):
    from leadline.models import DOCUMENT_MODELS
    from leadline.models.base import TenantDocument

    for model in DOCUMENT_MODELS:
        if issubclass(model, TenantDocument):
            plan = await winning_plan(model, {"org_id": ObjectId(), "_id": ObjectId()})
            assert "IXSCAN" in plan, (model.__name__, plan)


@pytest.mark.parametrize("filter", [
    {"org_id": ObjectId(), "status": "APPROVED"},
    {"org_id": ObjectId(), "category": "MARKETING"},
    {"org_id": ObjectId(), "status": "APPROVED", "category": "MARKETING"},
    {"org_id": ObjectId(), "name": "welcome", "language": "en"},
    {"org_id": ObjectId(), "template_id": "1234"},
    {"template_id": "1234", "last_event_time": {"$lte": 5}},
    {"template_id": "1234", "last_quality_time": {"$lte": 5}},
    {"org_id": ObjectId(), "_id": ObjectId(), "status": "PENDING"},
])
async def test_template_queries_use_an_index(client, filter):
    from leadline.models.templates import MessageTemplate

    plan = await winning_plan(MessageTemplate, filter)
    assert "IXSCAN" in plan, plan


async def test_aggregations_are_scoped_to_the_organisation(client, tenant):
    from tests.helpers import make_tenant

    other = await make_tenant(client, name="Other")
    for org in (tenant.org_id, other.org_id, other.org_id):
        await Payment(org_id=ObjectId(org), order_id="o", amount=1, base_amount=1, amount_usd=1).insert()
    rows = await Payment.aggregate_in(ObjectId(other.org_id), [{"$match": {"status": "SUCCESS"}},
                                                                {"$group": {"_id": None, "n": {"$sum": 1}}}])
    assert rows == [{"_id": None, "n": 2}]
    with pytest.raises(TenancyError):
        Payment.aggregate([{"$match": {"org_id": ObjectId(other.org_id)}}])
