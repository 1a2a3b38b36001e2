"""API key operations (dashboard, GraphQL only), each declared once."""
from __future__ import annotations

from leadline.resolvers.auth.admin import keys_of
from leadline.resolvers.context import RequestContext
from leadline.schema.auth.types import ApiKeyRow
from leadline.schema.common import Listed, listed
from leadline.schema.operations import Operations

ops = Operations("auth")


@ops.query(scope="*", description="The organisation's API keys with their last use, oldest first (full-access keys only).")
async def api_keys(ctx: RequestContext) -> Listed[ApiKeyRow]:
    return listed(await keys_of(ctx), ApiKeyRow.from_domain)
