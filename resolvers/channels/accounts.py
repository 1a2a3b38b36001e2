"""Resolving a request's `brandNumber` to the organisation's active chat business account."""
from __future__ import annotations

from leadline.models.channels import ChannelAccount
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.phones import digits_only


async def active_chat_account(ctx: RequestContext, brand_number: str | None, *, cached: bool = False) -> ChannelAccount:
    """BRAND_NUMBER_MISSING without a number; BIZACCT_NOT_FOUND unless an active account has it.

    `cached`: from the organisation's per-process cache (resolvers/org_cache.py), as sends read it.
    """
    number = digits_only(brand_number or "")
    if not number:
        raise ApiError("BRAND_NUMBER_MISSING", "brandNumber is required.")
    if cached:
        return await ctx.cached(("chat_account", number), lambda: _chat_account(ctx, number))
    return await _chat_account(ctx, number)


async def _chat_account(ctx: RequestContext, number: str) -> ChannelAccount:
    # (org_id, platform, number) is the account index's full key; is_active is checked here.
    account = await ChannelAccount.find_one_in(ctx, {"platform": "chatapp", "number": number})
    if account is None or not account.is_active:
        raise ApiError("BIZACCT_NOT_FOUND", f"No active business account for brandNumber {number}.")
    return account
