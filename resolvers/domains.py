"""Every domain package of the service. Importing this module loads each one, and with it what each
domain registers with the central modules (plan-usage counters, provider webhook handlers).

Every process imports it through leadline/services.py (the API, the worker, the CLI), so no process
runs with a domain's registrations missing; a new domain adds itself here.
"""
from leadline.resolvers import (assistants, billing, campaigns, channels, chats, contacts, inbox,  # noqa: F401
                                insights, leads, messaging, templates, tools)

DOMAIN_PACKAGES = (billing, channels, chats, contacts, messaging, templates, campaigns, assistants, tools, leads,
                   insights, inbox)
