"""Team inbox operations (spec: Endpoints → Team inbox), the inbox application's GraphQL fields and the
live updates subscription, each declared once (docs/inbox.md)."""
from __future__ import annotations

from typing import AsyncGenerator

import strawberry

from leadline.resolvers.context import RequestContext
from leadline.resolvers.inbox import agents as roster, assign, conversations, live, statuses
from leadline.resolvers.inbox import teams as team_domain
from leadline.resolvers.inbox.locate import LOCATOR_ERRORS, Locator
from leadline.schema.bindings import McpTool, Rest, spread
from leadline.schema.chats.types import ConversationRow
from leadline.schema.common import Paged, paged
from leadline.schema.inbox.inputs import (AssignInput, ConversationLocatorInput, ConversationStatusInput, TeamInput,
                                          TeamUpdateInput)
from leadline.schema.inbox.types import (AgentListType, AssignmentEntry, ConversationActivityEntry,
                                         ConversationAssignment, ConversationStatusChange, InboxStatusDeleted,
                                         InboxStatusType, InboxUpdate, TeamListType, TeamType)
from leadline.schema.operations import Operations

ops = Operations("inbox")

INBOX = "team_inbox"
STATUS_EVENT = "inbox.conversation_status_changed"


# --- teams and agents ------------------------------------------------------------------------------
@ops.query(scope="teams:read", description="Teams with their members and managers, and team usage.",
           feature=INBOX, limits=("max_teams",),
           rest=Rest("GET", "/v2.0/teams", reply=spread), mcp=McpTool("list_teams"))
async def teams(ctx: RequestContext) -> TeamListType:
    return TeamListType.from_domain(await team_domain.list_teams(ctx))


@ops.mutation(scope="teams:write", description="Create a team (every manager must be in agentIds).",
              feature=INBOX, limits=("max_teams",),
              rest=Rest("POST", "/v2.0/teams", status=201), mcp=McpTool("create_team"))
async def create_team(ctx: RequestContext, input: TeamInput) -> TeamType:
    return TeamType.from_domain(await team_domain.create_team(ctx, input.to_domain()))


@ops.mutation(scope="teams:write", description="Change a team's fields, members, managers or isActive.",
              feature=INBOX, errors=("TEAM_NOT_FOUND",),
              rest=Rest("PATCH", "/v2.0/teams/{teamId}"), mcp=McpTool("update_team"))
async def update_team(ctx: RequestContext, team_id: str, input: TeamUpdateInput) -> TeamType:
    return TeamType.from_domain(await team_domain.update_team(ctx, team_id, input.to_domain()))


@ops.query(scope="agents:read", description="The agents (role, teams, membership status) and seat usage.",
           feature=INBOX, limits=("max_agents",),
           rest=Rest("GET", "/v2.0/agents", reply=spread), mcp=McpTool("list_agents"))
async def agents(ctx: RequestContext) -> AgentListType:
    return AgentListType.from_domain(await roster.list_agents(ctx))


# --- assignment --------------------------------------------------------------------------------------
@ops.mutation(scope="assignments:write",
              description="Assign a conversation to an agent and/or a team (team only: round-robin).",
              feature=INBOX, errors=(*LOCATOR_ERRORS, *assign.ASSIGN_ERRORS),
              rest=Rest("POST", "/v2.0/conversations/assign"), mcp=McpTool("assign_conversation"))
async def assign_conversation(ctx: RequestContext, input: AssignInput) -> ConversationAssignment:
    result = await assign.assign(ctx, input.to_domain(), input.agent_id, input.team_id)
    return ConversationAssignment.from_domain(result)


@ops.mutation(scope="assignments:write", description="Clear a conversation's agent and team.",
              feature=INBOX, errors=LOCATOR_ERRORS,
              rest=Rest("POST", "/v2.0/conversations/unassign"), mcp=McpTool("unassign_conversation"))
async def unassign_conversation(ctx: RequestContext, input: ConversationLocatorInput) -> ConversationAssignment:
    return ConversationAssignment.from_domain(await assign.unassign(ctx, input.to_domain()))


@ops.query(scope="assignments:read", description="A conversation's assignment history, most recent last.",
           feature=INBOX, errors=LOCATOR_ERRORS,
           rest=Rest("GET", "/v2.0/conversations/assignment-history"), mcp=McpTool("get_assignment_history"))
async def assignment_history(ctx: RequestContext, conversation_id: str | None = None, phone: str | None = None,
                             channel: str | None = None,
                             business_number: str | None = None) -> list[AssignmentEntry]:
    entries = await assign.history(ctx, Locator(conversation_id, phone, channel, business_number))
    return [AssignmentEntry.from_domain(e) for e in entries]


# --- statuses ------------------------------------------------------------------------------------------
@ops.query(scope="conversations:read", description="The workspace's inbox statuses, by order.", feature=INBOX,
           rest=Rest("GET", "/v2.0/conversations/statuses"), mcp=McpTool("list_inbox_statuses"))
async def inbox_statuses(ctx: RequestContext) -> list[InboxStatusType]:
    return [InboxStatusType.from_domain(s) for s in await statuses.catalogue(ctx)]


@ops.mutation(scope="conversations:write", description="Move a conversation to a status of the catalogue.",
              feature=INBOX, errors=(*LOCATOR_ERRORS, "UNKNOWN_STATUS"), events=(STATUS_EVENT,),
              rest=Rest("POST", "/v2.0/conversations/status"), mcp=McpTool("set_conversation_status"))
async def set_conversation_status(ctx: RequestContext, input: ConversationStatusInput) -> ConversationStatusChange:
    change = await statuses.set_status(ctx, input.to_domain(), input.status)
    return ConversationStatusChange.from_domain(change)


@ops.mutation(scope="conversations:write", description="Add a status of the workspace's own (GraphQL only).",
              feature=INBOX, errors=("STATUS_EXISTS",))
async def create_inbox_status(ctx: RequestContext, key: str, label: str, color: str | None = None,
                              order: int | None = None) -> InboxStatusType:
    return InboxStatusType.from_domain(await statuses.create_status(ctx, key, label, color, order))


@ops.mutation(scope="conversations:write",
              description="Change a status's label, color or order; system statuses too (GraphQL only).",
              feature=INBOX, errors=("UNKNOWN_STATUS",))
async def update_inbox_status(ctx: RequestContext, key: str, label: str | None = None, color: str | None = None,
                              order: int | None = None) -> InboxStatusType:
    return InboxStatusType.from_domain(await statuses.update_status(ctx, key, label, color, order))


@ops.mutation(scope="conversations:write",
              description="Delete a status of the workspace's own; its conversations go back to open (GraphQL only).",
              feature=INBOX, errors=("UNKNOWN_STATUS", "SYSTEM_STATUS_NOT_DELETABLE"))
async def delete_inbox_status(ctx: RequestContext, key: str) -> InboxStatusDeleted:
    return InboxStatusDeleted.from_domain(await statuses.delete_status(ctx, key))


# --- the inbox application (GraphQL only) -----------------------------------------------------------------
@ops.query(scope="conversations:read",
           description="Conversation rows with assignment and status, filtered by status and by one of agentId, "
                       "teamId or unassigned; most recent lastMessageAt first.",
           feature=INBOX)
async def inbox_conversations(ctx: RequestContext, status: str | None = None, agent_id: strawberry.ID | None = None,
                              team_id: strawberry.ID | None = None, unassigned: bool | None = None,
                              page: int | None = None, limit: int | None = None) -> Paged[ConversationRow]:
    f = conversations.InboxFilter(status, agent_id, team_id, unassigned)
    return paged(await conversations.list_inbox(ctx, f, page, limit), ConversationRow.from_domain)


@ops.query(scope="conversations:read", description="A conversation's activity log, oldest first.",
           feature=INBOX, errors=("CONVERSATION_NOT_FOUND",))
async def conversation_activity(ctx: RequestContext, conversation_id: strawberry.ID) -> list[ConversationActivityEntry]:
    return [ConversationActivityEntry.from_domain(e) for e in await conversations.activity_of(ctx, conversation_id)]


@ops.mutation(scope="conversations:write", description="Mark a conversation read: unreadCount back to 0.",
              feature=INBOX, errors=("CONVERSATION_NOT_FOUND",))
async def mark_conversation_read(ctx: RequestContext, conversation_id: strawberry.ID) -> ConversationRow:
    return ConversationRow.from_domain(await conversations.mark_read(ctx, conversation_id))


@ops.mutation(scope="conversations:write", description="Set a conversation's archive, mute, pin and star flags "
                                                       "(the ones given).",
              feature=INBOX, errors=("CONVERSATION_NOT_FOUND",))
async def set_conversation_flags(ctx: RequestContext, conversation_id: strawberry.ID, is_archived: bool | None = None,
                                 is_muted: bool | None = None, is_pinned: bool | None = None,
                                 is_starred: bool | None = None) -> ConversationRow:
    row = await conversations.set_flags(ctx, conversation_id, archived=is_archived, muted=is_muted, pinned=is_pinned,
                                        starred=is_starred)
    return ConversationRow.from_domain(row)


# --- live updates ---------------------------------------------------------------------------------------------
@ops.subscription(scope="conversations:read",
                  description="The organisation's live inbox updates (one conversation's with conversationId).",
                  feature=INBOX, errors=("CONVERSATION_NOT_FOUND", "INVALID_API_KEY", "DOMAIN_NOT_WHITELISTED"))
async def inbox_updates(ctx: RequestContext,
                        conversation_id: strawberry.ID | None = None) -> AsyncGenerator[InboxUpdate, None]:
    async for update in live.updates(ctx, conversation_id):
        yield InboxUpdate.from_domain(update)
