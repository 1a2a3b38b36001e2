"""Chats routes (spec: Endpoints → Chats)."""
from __future__ import annotations

from leadline.rest_compat.table import Reply, Route, spread

MESSAGE = """messageId cmid direction status type text media { url type } components
             reactions { emoji from direction createdAt } campaignId cost { amount currency category }
             error { code title message } brandNumber internal createdAt"""
CONVERSATION = """conversationId contactId phone contactName brandNumber lastMessage lastMessageAt unreadCount
                  isArchived isMuted isPinned isStarred summary createdAt"""


def _history_reply(result: dict) -> Reply:
    """`data: {contact, messages}` and the cursor block as `pagination`."""
    return Reply({"data": {"contact": result["contact"], "messages": result["messages"]},
                  "pagination": result["pagination"]})


ROUTES = [
    Route("GET", "/v2.0/chats/history", "chats:read", summary="A contact's chat history, newest first",
          operation=f"""query($phone: String, $contactId: String, $defaultCountryCode: String, $limit: Int,
                              $before: String, $brandNumber: String, $excludeInternal: Boolean) {{
              chatHistory(phone: $phone, contactId: $contactId, defaultCountryCode: $defaultCountryCode,
                          limit: $limit, before: $before, brandNumber: $brandNumber,
                          excludeInternal: $excludeInternal) {{
                  contact {{ contactId phone bsuid contactName window {{ open lastInboundAt closesAt }} }}
                  messages {{ {MESSAGE} }}
                  pagination {{ limit hasMore nextCursor }} }} }}""",
          reply=_history_reply),
    Route("GET", "/v2.0/chats/conversations", "chats:read", summary="Conversation rows, most recent first",
          operation=f"""query($archived: Boolean, $search: String, $page: Int, $limit: Int) {{
              chatConversations(archived: $archived, search: $search, page: $page, limit: $limit) {{
                  data {{ {CONVERSATION} }} pagination {{ page limit total totalPages hasNext }} }} }}""",
          reply=spread),
]
