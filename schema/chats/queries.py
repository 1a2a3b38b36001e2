"""Chats root fields: thin calls into resolvers.chats."""
from __future__ import annotations

import strawberry
from strawberry.types import Info

from leadline.resolvers.chats import history, listing
from leadline.schema.chats.types import ChatHistory, ConversationPage
from leadline.schema.permissions import needs


@strawberry.type
class ChatsQuery:
    @strawberry.field(permission_classes=needs("chats:read"),
                      description="One contact's messages, newest first; `before` pages back in time.")
    async def chat_history(self, info: Info, phone: str | None = None, contact_id: str | None = None,
                           default_country_code: str | None = None, limit: int | None = None,
                           before: str | None = None, brand_number: str | None = None,
                           exclude_internal: bool | None = None) -> ChatHistory:
        result = await history.chat_history(info.context, phone=phone, contact_id=contact_id,
                                            default_country_code=default_country_code, limit=limit, before=before,
                                            brand_number=brand_number, exclude_internal=exclude_internal)
        return ChatHistory.from_domain(result)

    @strawberry.field(permission_classes=needs("chats:read"),
                      description="Conversation rows, most recent lastMessageAt first.")
    async def chat_conversations(self, info: Info, archived: bool | None = None, search: str | None = None,
                                 page: int | None = None, limit: int | None = None) -> ConversationPage:
        result = await listing.list_conversations(info.context, archived=archived, search=search, page=page,
                                                  limit=limit)
        return ConversationPage.from_page(result)
