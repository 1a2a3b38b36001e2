"""The route table: every /v2.0 route of every domain."""
from leadline.rest_compat.routes import billing, channels, chats, contacts, messaging, templates
from leadline.rest_compat.table import Route

ROUTES: list[Route] = [*billing.ROUTES, *channels.ROUTES, *contacts.ROUTES, *templates.ROUTES, *messaging.ROUTES,
                      *chats.ROUTES]
