"""Assigning conversations to agents and teams, unassigning them, and the assignment history.

Targets (spec: Team inbox → Assign):
- agent and team: as given; the agent must be a member of the team (AGENT_NOT_IN_TEAM);
- team only: the next of the team's active members in `agentIds` order, starting with the first. The
  team's cursor advances with one atomic `$inc` per assignment, so concurrent assignments each get
  their own turn (10 over 2 agents: 5 each); no active member is 409 NO_AVAILABLE_AGENT;
- agent only: the team is the agent's one active team; none or several is 400 TEAM_REQUIRED.
Invited agents are not assignable (409 AGENT_NOT_ACTIVE) and inactive teams take no assignments
(409 TEAM_INACTIVE). Every assignment adds one `assigned` entry to the history (a reassignment too);
an unassignment of an assigned conversation adds one `unassigned` entry, of an unassigned one nothing.
Each change is published live (`conversation:assigned` / `conversation:unassigned`).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bson import ObjectId
from pymongo import ReturnDocument

from leadline.models.base import utcnow
from leadline.models.chats import Conversation
from leadline.models.inbox import Agent, ConversationActivity, Team
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.inbox import activity, live
from leadline.resolvers.inbox.agents import agents_by_id
from leadline.resolvers.inbox.locate import Locator, locate
from leadline.resolvers.inbox.teams import get_team

ASSIGN_ERRORS = ("AGENT_NOT_FOUND", "TEAM_NOT_FOUND", "AGENT_NOT_IN_TEAM", "NO_AVAILABLE_AGENT", "TEAM_REQUIRED",
                 "AGENT_NOT_ACTIVE", "TEAM_INACTIVE")


@dataclass(frozen=True)
class Assignment:
    conversation_id: ObjectId
    agent_id: ObjectId | None
    team_id: ObjectId | None
    assigned_at: datetime | None


async def _agent(ctx: RequestContext, raw: str) -> Agent:
    agent = await Agent.get_in(ctx, raw)
    if agent is None:
        raise ApiError("AGENT_NOT_FOUND", f"No agent with id {raw[:100]}.")
    if agent.status != "active":
        raise ApiError("AGENT_NOT_ACTIVE", f"Agent {raw} has not accepted the invitation yet; only active agents "
                                           "can be assigned.")
    return agent


async def _team(ctx: RequestContext, raw: str) -> Team:
    team = await get_team(ctx, raw)
    if not team.is_active:
        raise ApiError("TEAM_INACTIVE", f"Team {raw} is inactive and takes no assignments.")
    return team


async def next_agent(ctx: RequestContext, team: Team) -> ObjectId:
    """The team's round-robin turn among its active members (agentIds order)."""
    known = await agents_by_id(ctx, team.agent_ids)
    active = [a for a in team.agent_ids if a in known and known[a].status == "active"]
    if not active:
        raise ApiError("NO_AVAILABLE_AGENT", f"Team {team.id} has no active agent to assign.")
    after = await Team.find_one_and_update_in(ctx, {"_id": team.id}, {"$inc": {"rr_cursor": 1}},
                                              projection={"rr_cursor": 1}, return_document=ReturnDocument.AFTER)
    if after is None:  # deleted meanwhile
        raise ApiError("TEAM_NOT_FOUND", f"No team with id {team.id}.")
    return active[(after["rr_cursor"] - 1) % len(active)]


async def _target(ctx: RequestContext, agent_raw: str | None, team_raw: str | None) -> tuple[ObjectId, ObjectId]:
    agent_raw, team_raw = (agent_raw or "").strip() or None, (team_raw or "").strip() or None
    if agent_raw is None and team_raw is None:
        raise validation_error([detail("agentId", "REQUIRED", "send agentId, teamId or both")])
    if team_raw is not None and agent_raw is not None:
        team, agent = await _team(ctx, team_raw), await _agent(ctx, agent_raw)
        if agent.id not in team.agent_ids:
            raise ApiError("AGENT_NOT_IN_TEAM", f"Agent {agent_raw} is not a member of team {team_raw}.")
        return agent.id, team.id
    if team_raw is not None:
        team = await _team(ctx, team_raw)
        return await next_agent(ctx, team), team.id
    agent = await _agent(ctx, agent_raw)
    teams = [t for t in await Team.find_in(ctx, {"agent_ids": agent.id}).to_list() if t.is_active]
    if len(teams) != 1:
        raise ApiError("TEAM_REQUIRED", f"Agent {agent_raw} is in {len(teams)} active teams; send teamId to say "
                                        "which.")
    return agent.id, teams[0].id


async def assign(ctx: RequestContext, locator: Locator, agent_raw: str | None, team_raw: str | None) -> Assignment:
    row = await locate(ctx, locator)
    agent_id, team_id = await _target(ctx, agent_raw, team_raw)
    now = utcnow()
    await Conversation.update_one_in(ctx, {"_id": row.id}, {"$set": {
        "assigned_agent_id": agent_id, "assigned_team_id": team_id, "assigned_at": now, "updated_at": now}})
    await activity.record(ctx, row.id, "assigned", agent_id=agent_id, team_id=team_id, at=now)
    result = Assignment(row.id, agent_id, team_id, now)
    await live.publish_one(ctx, live.Update(live.ASSIGNED, str(row.id), assignment_payload(result)))
    return result


async def unassign(ctx: RequestContext, locator: Locator) -> Assignment:
    row = await locate(ctx, locator)
    now = utcnow()
    before = await Conversation.find_one_and_update_in(
        ctx, {"_id": row.id}, {"$set": {"assigned_agent_id": None, "assigned_team_id": None, "assigned_at": None,
                                        "updated_at": now}},
        projection={"assigned_agent_id": 1, "assigned_team_id": 1}, return_document=ReturnDocument.BEFORE)
    agent_id = (before or {}).get("assigned_agent_id")
    team_id = (before or {}).get("assigned_team_id")
    result = Assignment(row.id, None, None, None)
    if agent_id is None and team_id is None:
        return result  # it was not assigned: nothing changed
    await activity.record(ctx, row.id, "unassigned", agent_id=agent_id, team_id=team_id, at=now)
    await live.publish_one(ctx, live.Update(live.UNASSIGNED, str(row.id), {
        **assignment_payload(result), "previousAgentId": str(agent_id) if agent_id else None,
        "previousTeamId": str(team_id) if team_id else None, "unassignedAt": live.iso(now)}))
    return result


def assignment_payload(a: Assignment) -> dict:
    return {"conversationId": str(a.conversation_id), "agentId": str(a.agent_id) if a.agent_id else None,
            "teamId": str(a.team_id) if a.team_id else None, "assignedAt": live.iso(a.assigned_at)}


async def history(ctx: RequestContext, locator: Locator) -> list[ConversationActivity]:
    row = await locate(ctx, locator)
    return await activity.entries(ctx, row.id, activity.ASSIGNMENT_KINDS)
