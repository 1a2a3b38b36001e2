"""Campaigns: segments, audiences, bulk personalised sends, reports: the domain logic."""
# The modules that register the campaign hooks and handlers, loaded with any part of this one.
from leadline.resolvers.campaigns import effects, feedback  # noqa: F401
