"""Message templates: list and fetch, local validation, submission for review, review updates."""
# The modules that register the domain's usage counter and webhook handlers, loaded with any part of it.
from leadline.resolvers.templates import queries, review  # noqa: F401
