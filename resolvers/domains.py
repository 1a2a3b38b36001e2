"""Every domain package of the service. Importing this module loads each one, and with it what each
domain registers with the central modules (plan-usage counters, provider webhook handlers).

Every process imports it through leadline/services.py (the API, the worker, the CLI), so no process
runs with a domain's registrations missing; a new domain adds itself here.
"""
from leadline.resolvers import billing, channels, chats, contacts, messaging, templates  # noqa: F401

DOMAIN_PACKAGES = (billing, channels, chats, contacts, messaging, templates)
