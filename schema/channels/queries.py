"""Channels root fields: thin calls into resolvers.channels."""
from __future__ import annotations

import strawberry
from strawberry.types import Info

from leadline.resolvers.channels import status
from leadline.schema.channels.types import ChannelStatusResult
from leadline.schema.permissions import needs


@strawberry.type
class ChannelsQuery:
    @strawberry.field(permission_classes=needs("channels:read"),
                      description="Stored channel accounts with their provider's live health.")
    async def channel_status(self, info: Info, channel: str | None = None,
                             brand_number: str | None = None) -> ChannelStatusResult:
        return ChannelStatusResult.from_domain(await status.channel_status(info.context, channel, brand_number))
