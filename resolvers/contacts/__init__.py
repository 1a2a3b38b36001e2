"""The contacts domain: upsert by phone, list/filter/lookup, custom field definitions and tags."""
# The modules that register the domain's plan-usage counters, loaded with any part of the domain.
from leadline.resolvers.contacts import counters, fields, tags  # noqa: F401
