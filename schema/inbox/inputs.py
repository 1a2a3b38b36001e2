"""Team inbox input types: every field optional, so the domain answers a missing one with its own code."""
from __future__ import annotations

import strawberry

from leadline.resolvers.inbox.locate import Locator
from leadline.resolvers.inbox.teams import TeamWrite


@strawberry.input
class TeamInput:
    name: str | None = None
    description: str | None = None
    color: str | None = None
    emoji: str | None = None
    agent_ids: list[str] | None = strawberry.field(default=None, description="Members, in round-robin order.")
    manager_ids: list[str] | None = strawberry.field(default=None, description="Each must also be in agentIds.")

    def to_domain(self) -> TeamWrite:
        return TeamWrite(self.name, self.description, self.color, self.emoji, self.agent_ids, self.manager_ids)


@strawberry.input
class TeamUpdateInput:
    name: str | None = None
    description: str | None = strawberry.field(default=None, description='"" clears it.')
    color: str | None = None
    emoji: str | None = None
    agent_ids: list[str] | None = None
    manager_ids: list[str] | None = None
    is_active: bool | None = None

    def to_domain(self) -> TeamWrite:
        return TeamWrite(self.name, self.description, self.color, self.emoji, self.agent_ids, self.manager_ids,
                         self.is_active)


@strawberry.input
class ConversationLocatorInput:
    """`conversationId`, or `phone` with `channel` (default chatapp) and `businessNumber` where needed."""

    conversation_id: str | None = None
    phone: str | None = None
    channel: str | None = None
    business_number: str | None = None

    def to_domain(self) -> Locator:
        return Locator(self.conversation_id, self.phone, self.channel, self.business_number)


@strawberry.input
class AssignInput(ConversationLocatorInput):
    agent_id: str | None = None
    team_id: str | None = None


@strawberry.input
class ConversationStatusInput(ConversationLocatorInput):
    status: str | None = strawberry.field(default=None, description="A key of the status catalogue.")
