"""Teams: create (within max_teams), list with populated members and managers, update.

Members (`agentIds`, in round-robin order) and managers (`managerIds`) must be agents of this
organisation, and every manager a member; a refusal is VALIDATION_ERROR with one detail per offending
id (`agentIds[1]` UNKNOWN_AGENT, `managerIds[0]` MANAGER_NOT_AGENT). An agent's teams are read from
the teams themselves, so they follow membership changes at once.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bson import ObjectId

from leadline.models.base import utcnow
from leadline.models.inbox import Agent, Team
from leadline.resolvers.billing.limits import limit_of, within_limit
from leadline.resolvers.billing.usage import usage_counter
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.inbox.agents import Usage, agents_by_id

MAX_NAME, MAX_DESCRIPTION, MAX_COLOR, MAX_EMOJI = 100, 500, 32, 16
MAX_MEMBERS = 500


@dataclass(frozen=True)
class TeamView:
    team: Team
    members: list[Agent]
    managers: list[Agent]


@dataclass(frozen=True)
class TeamList:
    teams: list[TeamView]
    usage: Usage


@dataclass
class TeamWrite:
    """Fields of a create or update; None: not given."""

    name: str | None = None
    description: str | None = None
    color: str | None = None
    emoji: str | None = None
    agent_ids: list[str] | None = None
    manager_ids: list[str] | None = None
    is_active: bool | None = None


@usage_counter("max_teams")
async def count_teams(org_id: ObjectId, timezone: str) -> int:
    return await Team.count_in(org_id)


def team_id_of(raw: str | None) -> ObjectId:
    if not isinstance(raw, str) or not ObjectId.is_valid(raw) or len(raw) != 24:
        raise ApiError("TEAM_NOT_FOUND", f"No team with id {str(raw)[:100]!r}.")
    return ObjectId(raw)


async def get_team(ctx: RequestContext, raw: str | None) -> Team:
    team = await Team.get_in(ctx, team_id_of(raw))
    if team is None:
        raise ApiError("TEAM_NOT_FOUND", f"No team with id {raw}.")
    return team


def _text(field: str, value: str | None, maximum: int, problems: list, *, required: bool = False) -> str | None:
    if value is None:
        return None
    text = value.strip()
    if required and not text:
        problems.append(detail(field, "REQUIRED", f"{field} must not be empty"))
    elif len(text) > maximum:
        problems.append(detail(field, "TOO_LONG", f"{field} is at most {maximum} characters"))
    return text


async def _members(ctx: RequestContext, agent_raw: list[str] | None, manager_raw: list[str] | None,
                   current: Team | None, problems: list) -> tuple[list[ObjectId] | None, list[ObjectId] | None]:
    """The new member and manager lists (None: unchanged), each id checked."""
    if agent_raw is not None and len(agent_raw) > MAX_MEMBERS:
        problems.append(detail("agentIds", "TOO_MANY", f"a team has at most {MAX_MEMBERS} members"))
        return None, None
    if manager_raw is not None and len(manager_raw) > MAX_MEMBERS:
        problems.append(detail("managerIds", "TOO_MANY", f"a team has at most {MAX_MEMBERS} managers"))
        return None, None
    wanted = [ObjectId(v) for v in [*(agent_raw or []), *(manager_raw or [])]
              if isinstance(v, str) and len(v) == 24 and ObjectId.is_valid(v)]
    known = await agents_by_id(ctx, wanted)
    members: list[ObjectId] | None = None
    if agent_raw is not None:
        members = []
        for i, raw in enumerate(agent_raw):
            oid = ObjectId(raw) if len(raw) == 24 and ObjectId.is_valid(raw) else None
            if oid is None or oid not in known:
                problems.append(detail(f"agentIds[{i}]", "UNKNOWN_AGENT", f"no agent with id {raw[:100]!r}"))
            elif oid not in members:
                members.append(oid)
    member_set = set(members if members is not None else (current.agent_ids if current else []))
    managers: list[ObjectId] | None = None
    if manager_raw is not None:
        managers = []
        for i, raw in enumerate(manager_raw):
            oid = ObjectId(raw) if len(raw) == 24 and ObjectId.is_valid(raw) else None
            if oid is None or oid not in known:
                problems.append(detail(f"managerIds[{i}]", "UNKNOWN_AGENT", f"no agent with id {raw[:100]!r}"))
            elif oid not in member_set:
                problems.append(detail(f"managerIds[{i}]", "MANAGER_NOT_AGENT",
                                       f"manager {raw} must also be in agentIds"))
            elif oid not in managers:
                managers.append(oid)
    elif members is not None and current is not None:
        # New members without new managers: the current managers must stay members.
        for i, oid in enumerate(current.manager_ids):
            if oid not in member_set:
                problems.append(detail(f"managerIds[{i}]", "MANAGER_NOT_AGENT",
                                       f"manager {oid} is no longer in agentIds; remove it from managerIds too"))
    return members, managers


async def view(ctx: RequestContext, team: Team, known: dict[ObjectId, Agent] | None = None) -> TeamView:
    known = known if known is not None else await agents_by_id(ctx, [*team.agent_ids, *team.manager_ids])
    return TeamView(team, [known[a] for a in team.agent_ids if a in known],
                    [known[a] for a in team.manager_ids if a in known])


async def create_team(ctx: RequestContext, write: TeamWrite) -> TeamView:
    problems: list = []
    if write.name is None:
        problems.append(detail("name", "REQUIRED", "name is required"))
    name = _text("name", write.name, MAX_NAME, problems, required=True)
    description = _text("description", write.description, MAX_DESCRIPTION, problems)
    color = _text("color", write.color, MAX_COLOR, problems)
    emoji = _text("emoji", write.emoji, MAX_EMOJI, problems)
    members, managers = await _members(ctx, write.agent_ids, write.manager_ids, None, problems)
    if problems:
        raise validation_error(problems)
    team = Team.new(ctx, name=name, description=description or None, color=color or None, emoji=emoji or None,
                    agent_ids=members or [], manager_ids=managers or [],
                    is_active=True if write.is_active is None else write.is_active)
    async with within_limit(ctx, "max_teams"):
        await team.insert()
    return await view(ctx, team)


async def update_team(ctx: RequestContext, raw_id: str, write: TeamWrite) -> TeamView:
    team = await get_team(ctx, raw_id)
    problems: list = []
    changes: dict[str, Any] = {}
    name = _text("name", write.name, MAX_NAME, problems, required=True)
    if name is not None:
        changes["name"] = name
    for field, value, maximum in (("description", write.description, MAX_DESCRIPTION),
                                  ("color", write.color, MAX_COLOR), ("emoji", write.emoji, MAX_EMOJI)):
        text = _text(field, value, maximum, problems)
        if text is not None:
            changes[field] = text or None  # "" clears it
    members, managers = await _members(ctx, write.agent_ids, write.manager_ids, team, problems)
    if problems:
        raise validation_error(problems)
    if members is not None:
        changes["agent_ids"] = members
    if managers is not None:
        changes["manager_ids"] = managers
    if write.is_active is not None:
        changes["is_active"] = write.is_active
    if changes:
        changes["updated_at"] = utcnow()
        await Team.update_one_in(ctx, {"_id": team.id}, {"$set": changes})
        team = team.model_copy(update=changes)
    return await view(ctx, team)


async def list_teams(ctx: RequestContext) -> TeamList:
    teams = await Team.find_in(ctx, {}).sort([("created_at", 1), ("_id", 1)]).to_list()
    known = await agents_by_id(ctx, [a for t in teams for a in (*t.agent_ids, *t.manager_ids)])
    views = [await view(ctx, t, known) for t in teams]
    return TeamList(views, Usage(limit_of(ctx, "max_teams"), len(teams)))
