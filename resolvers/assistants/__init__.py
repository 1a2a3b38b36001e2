"""AI assistants: configuration, channel binding, version history (docs/assistants.md): the domain logic."""
# The module that registers the domain's plan-usage counter (max_models), loaded with any part of the domain.
from leadline.resolvers.assistants import queries  # noqa: F401
