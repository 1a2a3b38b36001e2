"""Team inbox output types and their explicit conversion from the domain's values."""
from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry

from leadline.models.inbox import Agent, ConversationActivity
from leadline.resolvers.inbox.agents import AgentView, Roster, Usage
from leadline.resolvers.inbox.assign import Assignment
from leadline.resolvers.inbox.live import Update
from leadline.resolvers.inbox.statuses import Status, StatusChange, StatusDeleted
from leadline.resolvers.inbox.teams import TeamList, TeamView
from leadline.schema.scalars import JSON


def _id(value: Any) -> str | None:
    return str(value) if value is not None else None


@strawberry.type
class TeamMember:
    agent_id: str
    name: str
    email: str

    @classmethod
    def from_domain(cls, a: Agent) -> "TeamMember":
        return cls(agent_id=str(a.id), name=a.name, email=a.email)


@strawberry.type(name="Team")
class TeamType:
    team_id: str
    name: str
    description: str | None
    color: str | None
    emoji: str | None
    agent_ids: list[str]
    manager_ids: list[str]
    is_active: bool
    members: list[TeamMember]
    managers: list[TeamMember]
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, v: TeamView) -> "TeamType":
        t = v.team
        return cls(team_id=str(t.id), name=t.name, description=t.description, color=t.color, emoji=t.emoji,
                   agent_ids=[str(a) for a in t.agent_ids], manager_ids=[str(a) for a in t.manager_ids],
                   is_active=t.is_active, members=[TeamMember.from_domain(a) for a in v.members],
                   managers=[TeamMember.from_domain(a) for a in v.managers], created_at=t.created_at,
                   updated_at=t.updated_at)


@strawberry.type
class TeamUsage:
    max_teams: int | None
    team_count: int
    unlimited: bool
    over: bool
    behavior: str

    @classmethod
    def from_domain(cls, u: Usage) -> "TeamUsage":
        return cls(max_teams=u.limit, team_count=u.count, unlimited=u.unlimited, over=u.over, behavior=u.behavior)


@strawberry.type
class TeamListType:
    """`data` and `usage` (REST spreads both into the envelope)."""

    data: list[TeamType]
    usage: TeamUsage

    @classmethod
    def from_domain(cls, result: TeamList) -> "TeamListType":
        return cls(data=[TeamType.from_domain(v) for v in result.teams], usage=TeamUsage.from_domain(result.usage))


@strawberry.type
class AgentTeam:
    team_id: str
    name: str


@strawberry.type(name="Agent")
class AgentType:
    agent_id: str
    name: str
    email: str
    role: str
    status: str
    teams: list[AgentTeam]

    @classmethod
    def from_domain(cls, v: AgentView) -> "AgentType":
        a = v.agent
        return cls(agent_id=str(a.id), name=a.name, email=a.email, role=a.role, status=a.status,
                   teams=[AgentTeam(team_id=str(t.id), name=t.name) for t in v.teams])


@strawberry.type
class AgentUsage:
    max_agents: int | None
    agent_count: int
    unlimited: bool
    over: bool
    behavior: str

    @classmethod
    def from_domain(cls, u: Usage) -> "AgentUsage":
        return cls(max_agents=u.limit, agent_count=u.count, unlimited=u.unlimited, over=u.over, behavior=u.behavior)


@strawberry.type
class AgentListType:
    """`data` and `usage` (REST spreads both into the envelope)."""

    data: list[AgentType]
    usage: AgentUsage

    @classmethod
    def from_domain(cls, roster: Roster) -> "AgentListType":
        return cls(data=[AgentType.from_domain(v) for v in roster.agents], usage=AgentUsage.from_domain(roster.usage))


@strawberry.type
class ConversationAssignment:
    conversation_id: str
    agent_id: str | None
    team_id: str | None
    assigned_at: datetime | None

    @classmethod
    def from_domain(cls, a: Assignment) -> "ConversationAssignment":
        return cls(conversation_id=str(a.conversation_id), agent_id=_id(a.agent_id), team_id=_id(a.team_id),
                   assigned_at=a.assigned_at)


@strawberry.type
class ActivityActor:
    """Who made a change: `source` "api" with the API key's id and label."""

    source: str
    key_id: str | None
    label: str | None

    @classmethod
    def from_domain(cls, by: dict[str, Any]) -> "ActivityActor":
        return cls(source=by.get("source") or "api", key_id=by.get("keyId"), label=by.get("label"))


@strawberry.type
class AssignmentEntry:
    action: str
    agent_id: str | None
    team_id: str | None
    at: datetime
    by: ActivityActor

    @classmethod
    def from_domain(cls, e: ConversationActivity) -> "AssignmentEntry":
        return cls(action=e.kind, agent_id=_id(e.agent_id), team_id=_id(e.team_id), at=e.at,
                   by=ActivityActor.from_domain(e.by))


@strawberry.type
class ConversationActivityEntry:
    """One entry of a conversation's activity log (`kind`: assigned, unassigned, status-changed)."""

    kind: str
    agent_id: str | None
    team_id: str | None
    status: str | None
    status_from: str | None
    at: datetime
    by: ActivityActor

    @classmethod
    def from_domain(cls, e: ConversationActivity) -> "ConversationActivityEntry":
        return cls(kind=e.kind, agent_id=_id(e.agent_id), team_id=_id(e.team_id), status=e.status,
                   status_from=e.status_from, at=e.at, by=ActivityActor.from_domain(e.by))


@strawberry.type(name="InboxStatus")
class InboxStatusType:
    key: str
    label: str
    color: str | None
    order: int
    is_default: bool
    is_system: bool

    @classmethod
    def from_domain(cls, s: Status) -> "InboxStatusType":
        return cls(key=s.key, label=s.label, color=s.color, order=s.order, is_default=s.is_default,
                   is_system=s.is_system)


@strawberry.type
class InboxStatusDeleted:
    key: str
    deleted: bool
    moved_conversations: int = strawberry.field(description="Conversations moved back to the default status.")

    @classmethod
    def from_domain(cls, d: StatusDeleted) -> "InboxStatusDeleted":
        return cls(key=d.key, deleted=True, moved_conversations=d.moved)


@strawberry.type
class ConversationStatusChange:
    conversation_id: str
    status: str
    status_from: str

    @classmethod
    def from_domain(cls, c: StatusChange) -> "ConversationStatusChange":
        return cls(conversation_id=c.conversation_id, status=c.status, status_from=c.status_from)


@strawberry.type
class InboxUpdate:
    """A live change: `type` conversation:assigned, conversation:unassigned, conversation:status_changed,
    message:new, message:status, or `lagged` (`payload.dropped` updates were lost by a slow subscriber)."""

    type: str
    conversation_id: str | None
    payload: JSON

    @classmethod
    def from_domain(cls, u: Update) -> "InboxUpdate":
        return cls(type=u.type, conversation_id=u.conversation_id, payload=u.payload)
