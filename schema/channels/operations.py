"""Channel operations (spec: Endpoints → Channels), each declared once."""
from __future__ import annotations

from leadline.resolvers.channels import status
from leadline.resolvers.context import RequestContext
from leadline.schema.bindings import McpTool, Rest, spread
from leadline.schema.channels.types import ChannelStatusResult
from leadline.schema.operations import Operations

ops = Operations("channels")


@ops.query(scope="channels:read", description="Stored channel accounts with their provider's live health.",
           errors=("INVALID_CHANNEL", "NO_CHANNELS_FOUND"),
           rest=Rest("GET", "/v2.0/channels/status", reply=spread), mcp=McpTool("get_channel_status"))
async def channel_status(ctx: RequestContext, channel: str | None = None,
                         brand_number: str | None = None) -> ChannelStatusResult:
    return ChannelStatusResult.from_domain(await status.channel_status(ctx, channel, brand_number))
