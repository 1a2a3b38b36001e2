"""Custom scalars: UTC timestamps as ISO 8601 with a `Z`, and free-form JSON within limits.

Every value of the `JSON` scalar, wherever it is used, gets the limits of resolvers/json_limits.py
(depth 8, 64 KiB, no `$`-prefixed or dotted keys, no NUL): `check_variables` applies them to an
operation's variables before it runs (REST bodies and /graphql variables alike), with each offending
value's full path; the scalar's own parse applies them again to inline literals and to any caller that
skips that walk. An input field named `filter` holds a query language that checks its own keys (field
paths such as `customFields.budget`, a clear refusal for `$where`): the key rules are left to it, the
depth, size and NUL limits still apply.
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import strawberry
from graphql import (GraphQLError, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLScalarType,
                     GraphQLSchema, OperationDefinitionNode, type_from_ast, value_from_ast_untyped)
from strawberry.scalars import JSON

from leadline.resolvers.errors import validation_error
from leadline.resolvers.json_limits import MAX_BYTES, MAX_DEPTH, join, json_problem

# Input fields holding a query language that checks its own keys.
QUERY_FIELD_NAMES = frozenset({"filter", "advancedFilters"})


def serialize_datetime(value: datetime) -> str:
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _parse_datetime(value: Any) -> datetime:
    parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


DateTimeScalar = strawberry.scalar(
    name="DateTime",
    description="ISO 8601 timestamp in UTC, e.g. 2026-01-31T09:30:00.000Z",
    serialize=serialize_datetime,
    parse_value=_parse_datetime,
)


def _limit_error(problem: dict[str, str]) -> GraphQLError:
    err = validation_error([problem], f"{problem['path']}: {problem['message']}")
    return GraphQLError(err.message, original_error=err, extensions=err.extensions)


def _parse_json(value: Any) -> Any:
    # The walk over the variables (check_variables) knows the field and the full path; here only the
    # value is known, so the key rules (a filter's are its own) are left to that walk.
    if (problem := json_problem(value, "", query_keys=True)) is not None:
        raise _limit_error(problem)
    return value


def _parse_json_literal(node: Any, variables: dict[str, Any] | None = None) -> Any:
    # graphql-core's parser refuses documents nested more than a few hundred levels, so this is bounded.
    return _parse_json(value_from_ast_untyped(node, variables))


JSONScalar = strawberry.scalar(
    name="JSON",
    description=(f"Any JSON value, at most {MAX_DEPTH} levels deep and {MAX_BYTES // 1024} KiB serialised; "
                 "object keys must not start with `$` or contain `.`."),
    serialize=lambda value: value,
    parse_value=_parse_json,
    parse_literal=_parse_json_literal,
)

SCALAR_OVERRIDES = {datetime: DateTimeScalar, JSON: JSONScalar}


def _is_json(type_: Any) -> bool:
    return isinstance(type_, GraphQLScalarType) and type_.name == "JSON"


def variable_path(name: str, at: str, *, body_root: str | None) -> str:
    """The path of a value inside a variable; the REST body's variable (`body_root`) is the body itself."""
    if name == body_root:
        return at
    return join(name, at) if at else name


def check_variables(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: dict[str, Any] | None,
                    *, body_root: str | None = None) -> None:
    """VALIDATION_ERROR (the offending value's path in `details`) unless every `JSON` value among the
    variables is within the limits. Walks the values along their declared input types; values of the
    wrong shape are left to graphql-core's coercion, which reports them."""
    if not variables:
        return
    stack: list[tuple[Any, Any, str, str, bool]] = []
    for definition in operation.variable_definitions or ():
        name = definition.variable.name.value
        type_ = type_from_ast(schema, definition.type)
        if name in variables and type_ is not None:
            stack.append((variables[name], type_, name, "", False))
    while stack:
        value, type_, name, at, query = stack.pop()
        if value is None:
            continue
        if isinstance(type_, GraphQLNonNull):
            stack.append((value, type_.of_type, name, at, query))
        elif isinstance(type_, GraphQLList):
            items = value if isinstance(value, list) else [value]
            stack.extend((item, type_.of_type, name, join(at, i) if isinstance(value, list) else at, query)
                         for i, item in enumerate(items))
        elif isinstance(type_, GraphQLInputObjectType):
            if isinstance(value, dict):
                stack.extend((value[field_name], field.type, name, join(at, field_name),
                              field_name in QUERY_FIELD_NAMES)
                             for field_name, field in type_.fields.items() if field_name in value)
        elif _is_json(type_):
            path = variable_path(name, at, body_root=body_root)
            if (problem := json_problem(value, path, query_keys=query)) is not None:
                raise validation_error([problem], f"{problem['path']}: {problem['message']}")


__all__ = ["JSON", "DateTimeScalar", "JSONScalar", "SCALAR_OVERRIDES", "check_variables"]
