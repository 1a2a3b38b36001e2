"""The one Strawberry schema of the whole domain, built from every domain's operation declarations.

Its extensions bound what one /graphql request may cost (the REST routes run pre-compiled documents
and skip them): at most MAX_ALIASES aliases, MAX_TOKENS tokens and MAX_QUERY_DEPTH levels of selection;
each root field beyond the first is charged to the key's rate limit (the request itself was charged
once by authentication); an API key sends at most one mutation root field per request; every `JSON`
variable is within the free-form limits (schema/scalars.py) and no string literal holds a NUL. A
refused request runs nothing. In production, introspection and "Did you mean" suggestions are off.
"""
from __future__ import annotations

import logging
import re
from copy import copy
from typing import Any

import strawberry
from graphql import (BREAK, FieldNode, FragmentDefinitionNode, FragmentSpreadNode, GraphQLError,
                     InlineFragmentNode, OperationDefinitionNode, OperationType, SelectionSetNode, Visitor,
                     get_operation_ast, visit)
from graphql.validation import NoSchemaIntrospectionCustomRule
from strawberry.extensions import (MaxAliasesLimiter, MaxTokensLimiter, ParserCache, QueryDepthLimiter,
                                   SchemaExtension, ValidationCache)
from strawberry.schema.config import StrawberryConfig
from strawberry.types import ExecutionResult

from leadline.resolvers.auth.authenticate import charge
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.json_limits import clip_echoes
from leadline.schema.assistants import operations as assistants
from leadline.schema.auth import operations as auth
from leadline.schema.billing import operations as billing
from leadline.schema.campaigns import operations as campaigns
from leadline.schema.channels import operations as channels
from leadline.schema.chats import operations as chats
from leadline.schema.contacts import operations as contacts
from leadline.schema.events import operations as events
from leadline.schema.inbox import operations as inbox
from leadline.schema.insights import operations as insights
from leadline.schema.leads import operations as leads
from leadline.schema.messaging import operations as messaging
from leadline.schema.operations import Operation
from leadline.schema.scalars import SCALAR_OVERRIDES, check_variables
from leadline.schema.templates import operations as templates
from leadline.schema.tools import operations as tools

log = logging.getLogger("leadline.graphql")

# Every domain's declarations; a new domain adds its line here. The order is the SDL's and the route table's.
DOMAINS = (auth.ops, billing.ops, channels.ops, contacts.ops, templates.ops, messaging.ops, chats.ops, campaigns.ops,
           assistants.ops, tools.ops, leads.ops, insights.ops, inbox.ops, events.ops)
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
        # Logging happens in mask_error; Strawberry's default would print every traceback. Strawberry calls
        # this for every error list (parse errors included, which extensions never see).
        for error in errors:
            error.message = clip_echoes(error.message)
            if error.path is None and not error.extensions:
                # graphql-core's syntax and validation errors (the limits' included): the request is refused.
                error.extensions = {"code": "VALIDATION_ERROR", "status": 400}


class _MaskUnexpectedErrors(SchemaExtension):
    def on_operation(self):
        yield
        result = self.execution_context.result
        if result is not None and getattr(result, "errors", None):
            result.errors = [mask_error(e) for e in result.errors]


MAX_ALIASES = 30
MAX_TOKENS = 2000
MAX_QUERY_DEPTH = 10
# Built once: each builds its validation rule class, and the validation cache is keyed by the rules, so a
# copy per request (isolated per-request state) keeps the rule, and the cache, shared.
_ALIASES = MaxAliasesLimiter(max_alias_count=MAX_ALIASES)
_DEPTH = QueryDepthLimiter(max_depth=MAX_QUERY_DEPTH)
_SUGGESTION = re.compile(r"\s*Did you mean [^?]*\?")


def _is_production(context: Any) -> bool:
    settings = getattr(getattr(context, "services", None), "settings", None)
    return settings is not None and not settings.is_development


class _ProductionSurface(SchemaExtension):
    """Production: no introspection (`__schema`, `__type`) and no "Did you mean ...?" suggestions."""

    def on_operation(self):
        production = _is_production(self.execution_context.context)
        if production:
            rules = self.execution_context.validation_rules
            self.execution_context.validation_rules = (*rules, NoSchemaIntrospectionCustomRule)
        yield
        result = self.execution_context.result
        if production and result is not None and getattr(result, "errors", None):
            for error in result.errors:
                error.message = _SUGGESTION.sub("", error.message)


def root_fields(document: Any, operation: OperationDefinitionNode) -> set[str]:
    """The response keys of the operation's root fields (fragments followed; `__typename` and other
    introspection fields left out): what one request asks the service to run."""
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    keys: set[str] = set()
    seen: set[str] = set()
    stack: list[SelectionSetNode] = [operation.selection_set]
    while stack:
        for selection in stack.pop().selections:
            if isinstance(selection, FieldNode):
                if not selection.name.value.startswith("__"):
                    keys.add((selection.alias or selection.name).value)
            elif isinstance(selection, InlineFragmentNode):
                stack.append(selection.selection_set)
            elif isinstance(selection, FragmentSpreadNode) and selection.name.value not in seen:
                seen.add(selection.name.value)
                if (fragment := fragments.get(selection.name.value)) is not None:
                    stack.append(fragment.selection_set)
    return keys


class _NulLiteral(Visitor):
    found = False

    def enter_string_value(self, node, *_args):
        if "\x00" in node.value:
            self.found = True
            return BREAK
        return None


def _refuse_nul_literals(query: str | None, document: Any) -> None:
    # A NUL can only be written as an escape (\u0000 or \u{0}); skip the walk for documents without one.
    if not query or "\\u" not in query:
        return
    finder = _NulLiteral()
    visit(document, finder)
    if finder.found:
        raise validation_error([detail("query", "INVALID_VALUE",
                                       "string values must not contain a null character (U+0000)")])


class _RequestGuards(SchemaExtension):
    """After validation, before anything runs: the JSON limits on the variables, no NUL in literals,
    one mutation root field per API-key request, and the extra root fields charged to the rate limit.
    A refusal becomes the request's result, so nothing executes."""

    async def on_execute(self):
        ec = self.execution_context
        document = ec.graphql_document
        operation = get_operation_ast(document, ec.operation_name) if document is not None else None
        if operation is not None and ec.result is None:
            try:
                await self._guard(ec, document, operation)
            except ApiError as err:
                ec.result = ExecutionResult(data=None, errors=[
                    GraphQLError(err.message, original_error=err, extensions=err.extensions)])
        yield

    @staticmethod
    async def _guard(ec: Any, document: Any, operation: OperationDefinitionNode) -> None:
        ctx = ec.context
        _refuse_nul_literals(ec.query, document)
        check_variables(ec.schema._schema, operation, ec.variables)
        cost = len(root_fields(document, operation))
        key = getattr(ctx, "key", None)
        if key is None:
            return
        if operation.operation == OperationType.MUTATION and cost > 1:
            raise validation_error([detail("query", "TOO_MANY_MUTATIONS",
                                           f"the request holds {cost} mutation fields")],
                                   "Send one mutation per request: an API key may not run several mutation "
                                   "fields (aliases included) in one request.")
        if cost > 1:
            await charge(ctx, cost - 1)


def _root(name: str, kind: str, operations: tuple[Operation, ...]) -> type | None:
    fields = {op.fn.__name__: op.field() for op in operations if op.kind == kind}
    return strawberry.type(type(name, (), fields)) if fields else None


def build_schema(operations: tuple[Operation, ...]) -> LeadlineSchema:
    """The Strawberry schema whose root fields are these operations (the service's: all of them)."""
    return LeadlineSchema(
        query=_root("Query", "query", operations),
        mutation=_root("Mutation", "mutation", operations),
        subscription=_root("Subscription", "subscription", operations),
        config=StrawberryConfig(auto_camel_case=True),
        scalar_overrides=SCALAR_OVERRIDES,
        # Dashboards send the same few documents again and again: parse and validate each once (the LRU
        # caches are module-level; a fresh extension per request keeps per-request state apart).
        extensions=[_MaskUnexpectedErrors, _ProductionSurface, lambda: MaxTokensLimiter(max_token_count=MAX_TOKENS),
                    lambda: copy(_ALIASES), lambda: copy(_DEPTH), lambda: ParserCache(maxsize=512),
                    lambda: ValidationCache(maxsize=512), _RequestGuards],
    )


schema = build_schema(OPERATIONS)
