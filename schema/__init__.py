"""The one Strawberry schema of the whole domain: each domain contributes its root-field classes."""
from __future__ import annotations

import logging
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.extensions import ParserCache, ValidationCache
from strawberry.schema.config import StrawberryConfig

from leadline.resolvers.errors import ApiError
from leadline.schema.billing.queries import BillingQuery
from leadline.schema.channels.queries import ChannelsQuery
from leadline.schema.chats.queries import ChatsQuery
from leadline.schema.contacts.queries import ContactsMutation, ContactsQuery
from leadline.schema.messaging.queries import MessagingMutation, MessagingQuery
from leadline.schema.scalars import SCALAR_OVERRIDES
from leadline.schema.templates.queries import TemplatesMutation, TemplatesQuery

log = logging.getLogger("leadline.graphql")


# Each domain contributes root-field classes here; the order is the order fields appear in the SDL.
QUERIES: tuple[type, ...] = (BillingQuery, ChannelsQuery, ContactsQuery, TemplatesQuery, MessagingQuery, ChatsQuery)
MUTATIONS: tuple[type, ...] = (ContactsMutation, TemplatesMutation, MessagingMutation,)


def _root(name: str, parts: tuple[type, ...]) -> type | None:
    return strawberry.type(type(name, parts, {})) if parts else None


Query = _root("Query", QUERIES)
Mutation = _root("Mutation", MUTATIONS)


def mask_error(error: GraphQLError) -> GraphQLError:
    """Domain errors pass through with their extensions; anything unexpected is logged and hidden."""
    original = error.original_error
    if original is None or isinstance(original, (ApiError, GraphQLError)):
        return error
    log.error("unexpected error in %s", error.path, exc_info=(type(original), original, original.__traceback__))
    return GraphQLError("An unexpected error occurred; it has been logged.", nodes=error.nodes, path=error.path,
                        extensions={"code": "INTERNAL_SERVER_ERROR", "status": 500})


class LeadlineSchema(strawberry.Schema):
    def process_errors(self, errors: list[GraphQLError], execution_context: Any = None) -> None:
        # Logging happens in mask_error; Strawberry's default would print every traceback.
        return None


class _MaskUnexpectedErrors(strawberry.extensions.SchemaExtension):
    def on_operation(self):
        yield
        result = self.execution_context.result
        if result is not None and getattr(result, "errors", None):
            result.errors = [mask_error(e) for e in result.errors]


schema = LeadlineSchema(
    query=Query,
    mutation=Mutation,
    config=StrawberryConfig(auto_camel_case=True),
    scalar_overrides=SCALAR_OVERRIDES,
    # Dashboards send the same few documents again and again: parse and validate each once (the LRU
    # caches are module-level; a fresh extension per request keeps per-request state apart).
    extensions=[_MaskUnexpectedErrors, lambda: ParserCache(maxsize=512), lambda: ValidationCache(maxsize=512)],
)
