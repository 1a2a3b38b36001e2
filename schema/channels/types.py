"""Channel status types and their explicit conversion from domain objects."""
from __future__ import annotations

import strawberry

from leadline.resolvers.providers.base import LiveStatus
from leadline.resolvers.channels.status import ChannelHealth, ChannelStatusReport


@strawberry.type
class PhoneNumberLive:
    verified_name: str | None = strawberry.field(name="verified_name")
    quality_rating: str | None = strawberry.field(name="quality_rating")
    status: str | None


@strawberry.type
class ProviderErrorLive:
    http_status: int | None
    provider_error_code: int | None
    provider_error_subcode: int | None
    message: str


@strawberry.type
class ChannelLive:
    live_status: str
    phone_number: PhoneNumberLive | None
    phone_number_error: ProviderErrorLive | None

    @classmethod
    def from_domain(cls, live: LiveStatus) -> "ChannelLive":
        phone = live.phone_number
        err = live.phone_number_error
        return cls(
            live_status=live.live_status,
            phone_number=PhoneNumberLive(verified_name=phone.verified_name, quality_rating=phone.quality_rating,
                                         status=phone.status) if phone else None,
            phone_number_error=ProviderErrorLive(http_status=err.http_status,
                                                 provider_error_code=err.provider_error_code,
                                                 provider_error_subcode=err.provider_error_subcode,
                                                 message=err.message) if err else None,
        )


@strawberry.type
class ChatappAccountInfo:
    business_name: str | None
    brand_number: str
    is_active: bool
    phone_quality_rating: str | None
    messaging_tier: str | None


@strawberry.type
class SocialAccountInfo:
    business_name: str | None
    account_id: str
    is_active: bool


@strawberry.type
class ChatappChannel:
    db: ChatappAccountInfo
    live: ChannelLive

    @classmethod
    def from_domain(cls, h: ChannelHealth) -> "ChatappChannel":
        a = h.account
        return cls(db=ChatappAccountInfo(business_name=a.business_name, brand_number=a.number, is_active=a.is_active,
                                         phone_quality_rating=a.phone_quality_rating, messaging_tier=a.messaging_tier),
                   live=ChannelLive.from_domain(h.live))


@strawberry.type
class SocialChannel:
    db: SocialAccountInfo
    live: ChannelLive

    @classmethod
    def from_domain(cls, h: ChannelHealth) -> "SocialChannel":
        a = h.account
        return cls(db=SocialAccountInfo(business_name=a.business_name, account_id=a.number, is_active=a.is_active),
                   live=ChannelLive.from_domain(h.live))


@strawberry.type
class ChannelStatusMeta:
    accounts_checked: int
    chatapp_count: int
    photoapp_count: int
    pageapp_count: int


@strawberry.type
class ChannelStatusData:
    chatapp: list[ChatappChannel]
    photoapp: list[SocialChannel]
    pageapp: list[SocialChannel]


@strawberry.type
class ChannelStatusResult:
    data: ChannelStatusData
    meta: ChannelStatusMeta

    @classmethod
    def from_domain(cls, r: ChannelStatusReport) -> "ChannelStatusResult":
        g = r.by_platform
        return cls(
            data=ChannelStatusData(chatapp=[ChatappChannel.from_domain(h) for h in g["chatapp"]],
                                   photoapp=[SocialChannel.from_domain(h) for h in g["photoapp"]],
                                   pageapp=[SocialChannel.from_domain(h) for h in g["pageapp"]]),
            meta=ChannelStatusMeta(accounts_checked=r.accounts_checked, chatapp_count=len(g["chatapp"]),
                                   photoapp_count=len(g["photoapp"]), pageapp_count=len(g["pageapp"])),
        )
