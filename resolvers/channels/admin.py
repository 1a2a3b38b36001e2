"""Operator actions on channel accounts (behind `leadline admin connect-channel`)."""
from __future__ import annotations

import re

from leadline.models.base import utcnow
from leadline.models.channels import PLATFORMS, ChannelAccount
from leadline.resolvers.auth.admin import AdminError, get_org
from leadline.resolvers.auth.cache import invalidate_org
from leadline.resolvers.messaging.tier import TIER_LIMITS
from leadline.resolvers.phones import digits_only
from leadline.resolvers.secrets import is_sealed, seal

REVIEW_STATUSES = ("APPROVED", "PENDING", "REJECTED")
_PAGE_ID = re.compile(r"^[A-Za-z0-9_.-]{3,64}$")


async def connect_channel(org_raw: str, platform: str, number: str, business_name: str | None = None,
                          review_status: str = "APPROVED", *, provider: str | None = None,
                          provider_id: str | None = None, access_token: str | None = None,
                          provider_account_id: str | None = None, messages_per_second: int | None = None,
                          messaging_tier: str | None = None, redis=None, prefix: str | None = None) -> dict:
    """Connect (or update) a channel account. For chatapp, `provider_id` is the provider's phone-number
    id and `provider_account_id` the business account (WABA) id that template submission needs.
    With `redis`, running servers drop what they cached of the organisation (resolvers/org_cache.py)."""
    org = await get_org(org_raw)
    if platform not in PLATFORMS:
        raise AdminError(f"unknown platform '{platform}' (one of: {', '.join(PLATFORMS)})")
    review_status = review_status.upper()
    if review_status not in REVIEW_STATUSES:
        raise AdminError(f"review status must be one of: {', '.join(REVIEW_STATUSES)}")
    if platform == "chatapp":
        number = digits_only(number)
        if not number.isdigit() or not 6 <= len(number) <= 15:
            raise AdminError("a chatapp number is 6 to 15 digits in international form")
    elif not _PAGE_ID.match(number):
        raise AdminError("an account or page id is 3 to 64 letters, digits, '.', '_' or '-'")
    account = await ChannelAccount.find_one_in(org.id, {"platform": platform, "number": number})
    if account is None:
        account = ChannelAccount(org_id=org.id, platform=platform, number=number)
    account.business_name = business_name or account.business_name
    account.review_status = review_status
    account.is_active = True
    if provider is not None:
        account.provider = provider
    if provider_id is not None:
        if platform == "chatapp":
            account.provider_phone_number_id = provider_id
        else:
            account.provider_account_id = provider_id
    if provider_account_id is not None:
        account.provider_account_id = provider_account_id
    if access_token is not None:
        account.access_token = await seal(access_token)  # stored encrypted (resolvers/secrets.py)
    if messages_per_second is not None:
        if not 1 <= messages_per_second <= 10_000:
            raise AdminError("messages per second is 1 to 10,000")
        account.messages_per_second = messages_per_second
    if messaging_tier is not None:
        if messaging_tier.upper() not in TIER_LIMITS:
            raise AdminError(f"messaging tier must be one of: {', '.join(TIER_LIMITS)}")
        account.messaging_tier = messaging_tier.upper()
    account.updated_at = utcnow()
    await account.save()
    if redis is not None:
        await invalidate_org(redis, prefix, org.id)
    return {"channelId": str(account.id)}


async def encrypt_stored_tokens() -> int:
    """Seal the access tokens stored in clear before encryption existed (idempotent; each row is updated
    only while it still holds the clear value it was read with). Returns how many rows were sealed."""
    rows = await ChannelAccount.find_raw_across_orgs({"access_token": {"$type": "string"}}, {"access_token": 1})
    sealed = 0
    for row in rows:
        if is_sealed(row["access_token"]):
            continue
        result = await ChannelAccount.update_many_across_orgs(
            {"_id": row["_id"], "access_token": row["access_token"]},
            {"$set": {"access_token": await seal(row["access_token"]), "updated_at": utcnow()}})
        sealed += result.modified_count
    return sealed
