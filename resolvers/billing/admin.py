"""Operator actions on billing (behind `leadline admin set-wallet`)."""
from __future__ import annotations

from decimal import Decimal, InvalidOperation

from leadline.models.base import utcnow
from leadline.models.billing import Wallet
from leadline.resolvers.auth.admin import AdminError, get_org


async def set_wallet(org_raw: str, balance: str, active: bool = True) -> dict:
    org = await get_org(org_raw)
    try:
        amount = Decimal(balance)
    except InvalidOperation:
        raise AdminError(f"'{balance}' is not an amount in USD") from None
    if not amount.is_finite():
        raise AdminError("the balance must be a finite amount")
    wallet = await Wallet.find_one_in(org.id) or Wallet(org_id=org.id)
    wallet.balance = amount.quantize(Decimal("0.000001"))
    wallet.is_active = active
    wallet.updated_at = utcnow()
    await wallet.save()
    return {"orgId": str(org.id), "balance": float(wallet.balance), "currency": wallet.currency, "isActive": active}
