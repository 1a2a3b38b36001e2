"""Team inbox: agents, teams, the workspace's inbox statuses and each conversation's activity log.

The assignment and inbox status of a conversation live on its row (models/chats.py: Conversation);
live updates are not stored (Redis pub/sub, resolvers/inbox/live.py).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from beanie import PydanticObjectId
from pydantic import Field
from pymongo import ASCENDING, IndexModel

from leadline.models.base import TenantDocument, utcnow

AgentRole = Literal["owner", "admin", "manager", "agent"]
AgentStatus = Literal["active", "invited"]
AGENT_ROLES: tuple[str, ...] = ("owner", "admin", "manager", "agent")
AGENT_STATUSES: tuple[str, ...] = ("active", "invited")
# Every active or invited agent holds a seat (max_agents).
SEAT_STATUSES: tuple[str, ...] = ("active", "invited")


class Agent(TenantDocument):
    """An inbox user of the organisation. Its teams are read from the teams (Team.agent_ids), never
    stored twice, so they cannot drift from team membership."""

    name: str
    email: str
    # Lower-cased email: unique per organisation.
    email_key: str
    role: AgentRole = "agent"
    status: AgentStatus = "active"

    class Settings:
        name = "inbox_agents"
        indexes = [
            IndexModel([("org_id", ASCENDING), ("email_key", ASCENDING)], unique=True),
            IndexModel([("org_id", ASCENDING), ("created_at", ASCENDING)]),
            # Seat count: {org_id, status: {$in}}.
            IndexModel([("org_id", ASCENDING), ("status", ASCENDING)]),
        ]


class Team(TenantDocument):
    name: str
    description: str | None = None
    color: str | None = None
    emoji: str | None = None
    # Members in round-robin order; every manager is a member.
    agent_ids: list[PydanticObjectId] = Field(default_factory=list)
    manager_ids: list[PydanticObjectId] = Field(default_factory=list)
    is_active: bool = True
    # Round-robin: assignments handed out so far, advanced atomically ($inc) by each team-only assign.
    rr_cursor: int = 0

    class Settings:
        name = "inbox_teams"
        indexes = [
            IndexModel([("org_id", ASCENDING), ("created_at", ASCENDING)]),
            # An agent's teams (multikey): {org_id, agent_ids: <agent>}.
            IndexModel([("org_id", ASCENDING), ("agent_ids", ASCENDING)]),
        ]


class InboxStatus(TenantDocument):
    """A status of the workspace's catalogue: its own (`is_system` false) or the workspace's label, colour
    and order for a system status (pending, open, resolved exist without a document)."""

    key: str
    label: str
    color: str | None = None
    order: int = 0
    is_system: bool = False

    class Settings:
        name = "inbox_statuses"
        indexes = [IndexModel([("org_id", ASCENDING), ("key", ASCENDING)], unique=True)]


ActivityKind = Literal["assigned", "unassigned", "status-changed"]


class ConversationActivity(TenantDocument):
    """One entry of a conversation's activity log: an assignment change or a status change, with who
    made it (`by`: {source, keyId, label})."""

    conversation_id: PydanticObjectId
    kind: ActivityKind
    agent_id: PydanticObjectId | None = None
    team_id: PydanticObjectId | None = None
    status: str | None = None
    status_from: str | None = None
    by: dict[str, Any] = Field(default_factory=dict)
    at: datetime = Field(default_factory=utcnow)

    class Settings:
        name = "inbox_conversation_activity"
        indexes = [
            # The whole log {org_id, conversation_id}; assignment history adds kind: {$in}.
            IndexModel([("org_id", ASCENDING), ("conversation_id", ASCENDING), ("kind", ASCENDING),
                        ("at", ASCENDING)]),
        ]


# The documents this domain registers with Beanie (models/__init__.py collects them).
MODELS: list[type] = [Agent, Team, InboxStatus, ConversationActivity]
