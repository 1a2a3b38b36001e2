"""AI tools assistants call: definitions by type, secrets, history, run logs (docs/tools.md): the domain logic."""
# The module that registers the domain's plan-usage counter (max_tools), loaded with any part of the domain.
from leadline.resolvers.tools import queries  # noqa: F401
