"""Team inbox: agents, teams, assignment, inbox statuses, live updates: the domain logic (docs/inbox.md)."""
# The modules that register the domain's plan-usage counters (max_agents, max_teams).
from leadline.resolvers.inbox import agents, teams  # noqa: F401
