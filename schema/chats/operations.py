"""Chats operations (spec: Endpoints → Chats), each declared once."""
from __future__ import annotations

from typing import Annotated

from leadline.resolvers.chats import history, listing
from leadline.resolvers.context import RequestContext
from leadline.schema.bindings import McpTool, Reply, Rest, shaped, spread
from leadline.schema.chats.types import ChatHistory, ConversationRow
from leadline.schema.common import Paged, limit_argument, page_argument, paged
from leadline.schema.operations import Operations

ops = Operations("chats")


@shaped(lambda out: {None: {"data": out.pick("contact", "messages"), "pagination": out.field("pagination")}})
def _history_reply(result: dict) -> Reply:
    """`data: {contact, messages}` and the cursor block as `pagination`."""
    return Reply({"data": {"contact": result["contact"], "messages": result["messages"]},
                  "pagination": result["pagination"]})


@ops.query(scope="chats:read", description="One contact's messages, newest first; `before` pages back in time.",
           errors=("IDENTIFIER_REQUIRED", "INVALID_BEFORE", "CONTACT_NOT_FOUND", "INVALID_PHONE_NUMBER"),
           internal="CHAT_HISTORY_FAILED",
           rest=Rest("GET", "/v2.0/chats/history", reply=_history_reply), mcp=McpTool("get_chat_history"))
async def chat_history(ctx: RequestContext, phone: str | None = None, contact_id: str | None = None,
                       default_country_code: str | None = None,
                       limit: Annotated[int | None, limit_argument(history.DEFAULT_LIMIT, history.MAX_LIMIT)] = None,
                       before: str | None = None,
                       brand_number: str | None = None, exclude_internal: bool | None = None) -> ChatHistory:
    result = await history.chat_history(ctx, phone=phone, contact_id=contact_id,
                                        default_country_code=default_country_code, limit=limit, before=before,
                                        brand_number=brand_number, exclude_internal=exclude_internal)
    return ChatHistory.from_domain(result)


@ops.query(scope="chats:read", description="Conversation rows, most recent lastMessageAt first.",
           internal="CONVERSATIONS_LIST_FAILED",
           rest=Rest("GET", "/v2.0/chats/conversations", reply=spread), mcp=McpTool("list_conversations"))
async def chat_conversations(ctx: RequestContext, archived: bool | None = None, search: str | None = None,
                             page: Annotated[int | None, page_argument()] = None,
                             limit: Annotated[int | None, limit_argument(listing.DEFAULT_LIMIT, listing.MAX_LIMIT)] = None) -> Paged[ConversationRow]:
    result = await listing.list_conversations(ctx, archived=archived, search=search, page=page, limit=limit)
    return paged(result, ConversationRow.from_domain)
