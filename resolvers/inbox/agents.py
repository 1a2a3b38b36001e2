"""Agents: the organisation's inbox users, their seats (max_agents) and the read-only roster.

Agents are added by the operator (`leadline admin add-agent`) until dashboard sign-in exists. Every
active or invited agent holds a seat; at the plan's `max_agents` no agent is added. A plan change can
leave more seats taken than the plan allows (`usage.over`): existing agents keep working and no new
one is added (`behavior: "block_new"`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from bson import ObjectId
from pymongo.errors import DuplicateKeyError

from leadline.models.inbox import AGENT_ROLES, AGENT_STATUSES, SEAT_STATUSES, Agent, Team
from leadline.resolvers.auth.admin import AdminError, get_org
from leadline.resolvers.billing.limits import limit_of
from leadline.resolvers.billing.plans import plan_for
from leadline.resolvers.billing.usage import usage_counter
from leadline.resolvers.context import RequestContext

BLOCK_NEW = "block_new"
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
MAX_NAME = 100
MAX_EMAIL = 254


@dataclass(frozen=True)
class Usage:
    """Seats or teams against the plan: `limit` None is unlimited; `over` after a plan change."""

    limit: int | None
    count: int
    behavior: str = BLOCK_NEW

    @property
    def unlimited(self) -> bool:
        return self.limit is None

    @property
    def over(self) -> bool:
        return self.limit is not None and self.count > self.limit


@dataclass(frozen=True)
class AgentView:
    agent: Agent
    teams: list[Team]


@dataclass(frozen=True)
class Roster:
    agents: list[AgentView]
    usage: Usage


@usage_counter("max_agents")
async def count_seats(org_id: ObjectId, timezone: str) -> int:
    # One equality count per seat status: each is a prefix of the (org_id, status) index.
    return sum([await Agent.count_in(org_id, {"status": status}) for status in SEAT_STATUSES])


async def list_agents(ctx: RequestContext) -> Roster:
    agents = await Agent.find_in(ctx, {}).sort([("created_at", 1), ("_id", 1)]).to_list()
    # The organisation's teams are few (max_teams): one read, membership mapped here.
    teams = await Team.find_in(ctx, {}).sort([("created_at", 1), ("_id", 1)]).to_list()
    views = [AgentView(a, [t for t in teams if a.id in t.agent_ids]) for a in agents]
    seats = sum(1 for a in agents if a.status in SEAT_STATUSES)
    return Roster(views, Usage(limit_of(ctx, "max_agents"), seats))


async def agents_by_id(ctx: RequestContext, ids: list[ObjectId]) -> dict[ObjectId, Agent]:
    """The organisation's agents among `ids` (another organisation's are left out), read in batches
    (models/base.py `get_many_in`)."""
    return {a.id: a for a in await Agent.get_many_in(ctx, ids)}


async def add_agent(org_raw: str, name: str, email: str, role: str = "agent", status: str = "active") -> dict:
    """`leadline admin add-agent`: an agent of the organisation, within its seats."""
    org = await get_org(org_raw)
    name, email = (name or "").strip(), (email or "").strip()
    if not name or len(name) > MAX_NAME:
        raise AdminError(f"the agent needs a name of 1 to {MAX_NAME} characters")
    if len(email) > MAX_EMAIL or not _EMAIL.match(email):
        raise AdminError(f"'{email[:100]}' is not an email address")
    if role not in AGENT_ROLES:
        raise AdminError(f"unknown role '{role}' (one of: {', '.join(AGENT_ROLES)})")
    if status not in AGENT_STATUSES:
        raise AdminError(f"unknown status '{status}' (one of: {', '.join(AGENT_STATUSES)})")
    plan = plan_for(org.plan)
    limit = plan.limits.get("max_agents")
    seats = await count_seats(org.id, org.timezone)
    if limit is not None and seats >= limit:
        raise AdminError(f"the organisation uses {seats} of its {limit} seats (max_agents on the {plan.name} plan): "
                         "no agent can be added")
    if await Agent.find_one_in(org.id, {"email_key": email.lower()}) is not None:
        raise AdminError(f"the organisation already has an agent with email {email}")
    agent = Agent.new(org.id, name=name, email=email, email_key=email.lower(), role=role, status=status)
    try:
        await agent.insert()
    except DuplicateKeyError:
        raise AdminError(f"the organisation already has an agent with email {email}") from None
    return {"agentId": str(agent.id)}
