"""Operator commands of the inbox domain (`leadline admin ...`), declared with `@command`."""
from __future__ import annotations

from leadline.admin import AdminEnv, command
from leadline.models.inbox import AGENT_ROLES, AGENT_STATUSES


@command("add-agent", "add an inbox agent to the organisation (within its max_agents seats)", arguments=lambda p: (
    p.add_argument("--org", required=True, help="the organisation's id"),
    p.add_argument("--name", required=True, help="the agent's name"),
    p.add_argument("--email", required=True, help="the agent's email (unique in the organisation)"),
    p.add_argument("--role", default="agent", choices=list(AGENT_ROLES), help="the agent's role"),
    p.add_argument("--status", default="active", choices=list(AGENT_STATUSES),
                   help="membership status (both hold a seat)")))
async def add(args, env: AdminEnv):
    from leadline.resolvers.inbox.agents import add_agent

    return await add_agent(args.org, args.name, args.email, args.role, args.status)
