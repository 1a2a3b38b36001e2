"""Channel connection health: the stored account next to what its provider says right now."""
from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from leadline.models.channels import PLATFORMS, ChannelAccount
from leadline.resolvers.providers.base import LiveStatus
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.phones import digits_only

log = logging.getLogger(__name__)
LIVE_CHECK_TIMEOUT = 10.0


@dataclass(frozen=True)
class ChannelHealth:
    account: ChannelAccount
    live: LiveStatus


@dataclass(frozen=True)
class ChannelStatusReport:
    by_platform: dict[str, list[ChannelHealth]]

    @property
    def accounts_checked(self) -> int:
        return sum(len(v) for v in self.by_platform.values())


async def _live(ctx: RequestContext, account: ChannelAccount) -> LiveStatus:
    adapter = ctx.services.providers.for_account(account)
    try:
        return await asyncio.wait_for(adapter.check_health(account), LIVE_CHECK_TIMEOUT)
    except Exception:  # one broken account must not fail the whole report
        log.warning("live check failed", exc_info=True, extra={"account_id": str(account.id)})
        return LiveStatus("unknown")


async def channel_status(ctx: RequestContext, channel: str | None, brand_number: str | None) -> ChannelStatusReport:
    if channel is not None and channel not in PLATFORMS:
        raise ApiError("INVALID_CHANNEL", f"channel must be one of: {', '.join(PLATFORMS)}")
    # An organisation has a handful of accounts: read them by the org_id index and filter here
    # (SecantusDB uses an index only when the filter's fields are a prefix of its key).
    number = digits_only(brand_number) if brand_number else None
    accounts = [
        a for a in await ChannelAccount.find_in(ctx).sort("created_at").to_list()
        if a.is_active and (channel is None or a.platform == channel) and (number is None or a.number == number)
    ]
    if not accounts:
        raise ApiError("NO_CHANNELS_FOUND", "No active channel accounts match.")
    lives = await asyncio.gather(*(_live(ctx, a) for a in accounts))
    grouped: dict[str, list[ChannelHealth]] = {p: [] for p in PLATFORMS}
    for account, live in zip(accounts, lives):
        grouped[account.platform].append(ChannelHealth(account, live))
    return ChannelStatusReport(grouped)
