"""Lead segmentation (AI lead studio): one configuration per organisation: the domain logic."""
# The module that registers the domain's plan-usage counters, loaded with any part of the domain.
from leadline.resolvers.leads import usage  # noqa: F401
