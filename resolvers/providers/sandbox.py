"""The sandbox adapter: the embedded default, answering like a healthy provider."""
from __future__ import annotations

from models.channels import ChannelAccount
from resolvers.providers.base import LiveStatus, PhoneNumberInfo


class SandboxAdapter:
    """Answers like a healthy provider; used when no real provider is configured."""

    name = "sandbox"

    async def check_health(self, account: ChannelAccount) -> LiveStatus:
        if account.platform != "chatapp":
            return LiveStatus("connected")
        return LiveStatus(
            "connected",
            PhoneNumberInfo(account.business_name or account.number, account.phone_quality_rating, "CONNECTED"),
        )

    async def close(self) -> None:
        return None
