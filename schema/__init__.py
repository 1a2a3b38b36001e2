"""The one Strawberry schema of the whole domain, built from every domain's operation declarations."""
from __future__ import annotations

import logging
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.extensions import ParserCache, ValidationCache
from strawberry.schema.config import StrawberryConfig

from leadline.resolvers.errors import ApiError
from leadline.schema.billing import operations as billing
from leadline.schema.channels import operations as channels
from leadline.schema.chats import operations as chats
from leadline.schema.contacts import operations as contacts
from leadline.schema.messaging import operations as messaging
from leadline.schema.operations import Operation
from leadline.schema.scalars import SCALAR_OVERRIDES
from leadline.schema.templates import operations as templates

log = logging.getLogger("leadline.graphql")

# Every domain's declarations; a new domain adds its line here. The order is the SDL's and the route table's.
DOMAINS = (billing.ops, channels.ops, contacts.ops, templates.ops, messaging.ops, chats.ops)
OPERATIONS: tuple[Operation, ...] = tuple(op for domain in DOMAINS for op in domain.items)


def operation(name: str) -> Operation:
    """The declared operation with this GraphQL name."""
    return next(op for op in OPERATIONS if op.name == name)


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


def _root(name: str, kind: str, operations: tuple[Operation, ...]) -> type | None:
    fields = {op.fn.__name__: op.field() for op in operations if op.kind == kind}
    return strawberry.type(type(name, (), fields)) if fields else None


def build_schema(operations: tuple[Operation, ...]) -> LeadlineSchema:
    """The Strawberry schema whose root fields are these operations (the service's: all of them)."""
    return LeadlineSchema(
        query=_root("Query", "query", operations),
        mutation=_root("Mutation", "mutation", operations),
        config=StrawberryConfig(auto_camel_case=True),
        scalar_overrides=SCALAR_OVERRIDES,
        # Dashboards send the same few documents again and again: parse and validate each once (the LRU
        # caches are module-level; a fresh extension per request keeps per-request state apart).
        extensions=[_MaskUnexpectedErrors, lambda: ParserCache(maxsize=512), lambda: ValidationCache(maxsize=512)],
    )


schema = build_schema(OPERATIONS)
