"""Connected channel accounts: chat business numbers, photoapp accounts, pageapp pages."""
from __future__ import annotations

from typing import Literal

from pymongo import ASCENDING, IndexModel

from leadline.models.base import TenantDocument

Platform = Literal["chatapp", "photoapp", "pageapp"]
PLATFORMS: tuple[str, ...] = ("chatapp", "photoapp", "pageapp")


class ChannelAccount(TenantDocument):
    platform: Platform
    # Chat: the business phone number (digits, the `brandNumber`); others: account or page id.
    number: str
    business_name: str | None = None
    is_active: bool = True
    review_status: Literal["APPROVED", "PENDING", "REJECTED"] = "APPROVED"
    phone_quality_rating: str = "GREEN"
    messaging_tier: str = "TIER_250"
    # The number's throughput (messages per second) that bulk sends pace themselves to; None: the
    # provider's default (the Cloud API's 80, the sandbox's 1,000).
    messages_per_second: int | None = None
    # Which provider adapter serves this account; None = the service default (LEADLINE_PROVIDER).
    provider: str | None = None
    provider_phone_number_id: str | None = None
    provider_account_id: str | None = None
    # Stored encrypted (`enc:v1:...`, resolvers/secrets.py); a value without the prefix is a clear token
    # from before encryption, which resolvers/channels/admin.py:encrypt_stored_tokens seals.
    access_token: str | None = None

    class Settings:
        name = "channel_accounts"
        indexes = [
            IndexModel([("org_id", ASCENDING), ("platform", ASCENDING), ("number", ASCENDING)], unique=True),
            # Webhook routing finds the account from the provider's ids, across organisations.
            IndexModel([("provider_phone_number_id", ASCENDING)]),
            IndexModel([("platform", ASCENDING), ("number", ASCENDING)]),
        ]
