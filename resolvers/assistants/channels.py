"""Binding an assistant to a channel: `channel {activate: true, platform, brandNumber?}` finds the
organisation's connected account; `channel {deactivate: true}` disconnects.

Chat numbers are chosen by `brandNumber` (required when there are several); photoapp accounts and
pageapp pages by `pageId` (or `brandNumber`) when there are several. One assistant per channel per
organisation (a unique index): taking a channel detaches its previous assistant, which gets a
`channel_update` history entry.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leadline.models.assistants import Assistant
from leadline.models.channels import PLATFORMS, ChannelAccount
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail
from leadline.resolvers.phones import digits_only

NOT_CONNECTED = {"chatapp": "BIZACCT_NOT_FOUND", "photoapp": "PHOTOAPP_NOT_CONNECTED", "pageapp": "PAGEAPP_NOT_CONNECTED"}
ACCOUNT_WORD = {"chatapp": "business number", "photoapp": "photoapp account", "pageapp": "pageapp page"}


@dataclass(frozen=True)
class ChannelRequest:
    activate: bool
    platform: str | None = None
    number: str | None = None


@dataclass(frozen=True)
class Binding:
    platform: str
    number: str

    @property
    def key(self) -> str:
        return f"{self.platform}:{self.number}"

    def describe(self) -> str:
        return f"{self.platform} {self.number}"


def parse(raw: dict[str, Any] | None) -> tuple[ChannelRequest | None, list[dict[str, str]]]:
    """The requested change (None: none) and any validation problems. An unknown platform is
    400 PLATFORM_INVALID at once."""
    if raw is None:
        return None, []
    activate, deactivate = raw.get("activate") is True, raw.get("deactivate") is True
    if activate == deactivate:
        return None, [detail("channel", "INVALID_VALUE",
                             "channel needs either activate: true (with platform) or deactivate: true")]
    if deactivate:
        return ChannelRequest(activate=False), []
    platform = raw.get("platform")
    if platform not in PLATFORMS:
        raise ApiError("PLATFORM_INVALID", f"channel.platform must be one of: {', '.join(PLATFORMS)}"
                                           + (f" (got '{platform}')" if platform else ""))
    number = raw.get("brandNumber") if platform == "chatapp" else (raw.get("pageId") or raw.get("brandNumber"))
    number = digits_only(number) if platform == "chatapp" and number else (number.strip() if number else None)
    return ChannelRequest(activate=True, platform=platform, number=number or None), []


async def resolve(ctx: RequestContext, request: ChannelRequest) -> Binding:
    """The connected account the request names: 409 when none is connected, CHANNEL_AMBIGUOUS when
    several are and none is named."""
    platform = request.platform
    # (org_id, platform) is a prefix of the accounts' unique index; is_active is checked here.
    accounts = [a for a in await ChannelAccount.find_in(ctx, {"platform": platform}).to_list() if a.is_active]
    word = ACCOUNT_WORD[platform]
    if request.number is not None:
        accounts = [a for a in accounts if a.number == request.number]
        if not accounts:
            raise ApiError(NOT_CONNECTED[platform], f"No connected {word} {request.number} in this organisation.",
                           status=409)
    elif not accounts:
        raise ApiError(NOT_CONNECTED[platform], f"The organisation has no connected {word}.", status=409)
    elif len(accounts) > 1:
        field = "brandNumber" if platform == "chatapp" else "pageId"
        numbers = ", ".join(sorted(a.number for a in accounts))
        raise ApiError("CHANNEL_AMBIGUOUS", f"The organisation has several connected {word}s ({numbers}): "
                                            f"name one in channel.{field}.")
    return Binding(platform, accounts[0].number)


def binding_of(assistant: Assistant) -> Binding | None:
    if assistant.channel_key is None:
        return None
    return Binding(assistant.channel_platform, assistant.channel_number)


def channel_fields(binding: Binding | None) -> dict[str, Any]:
    return {"channel_platform": binding.platform if binding else None,
            "channel_number": binding.number if binding else None,
            "channel_key": binding.key if binding else None}


def channel_view(assistant: Assistant) -> dict[str, Any] | None:
    """The API's `channel`: `{platform, phone}` for chat, `{platform, pageId}` otherwise."""
    binding = binding_of(assistant)
    if binding is None:
        return None
    field = "phone" if binding.platform == "chatapp" else "pageId"
    return {"platform": binding.platform, field: binding.number}


async def holder(ctx: RequestContext, binding: Binding) -> Assistant | None:
    return await Assistant.find_one_in(ctx, {"channel_key": binding.key})
