"""The field selection a REST route asks for: every field of the operation's output type, recursively.

Unions select each member with an inline fragment; fields marked GraphQL-only (schema/common.py
`graphql_only`) are left out. A type that cannot be selected this way (a field with a required
argument, a cycle) is a start-up error: the route's output could not be derived.
"""
from __future__ import annotations

from graphql import (GraphQLObjectType, GraphQLOutputType, GraphQLUnionType, get_named_type, is_leaf_type,
                     is_non_null_type)
from graphql.pyutils import Undefined

from leadline.schema.common import GRAPHQL_ONLY


def _graphql_only(field) -> bool:
    definition = (field.extensions or {}).get("strawberry-definition")
    return bool(definition is not None and (definition.metadata or {}).get(GRAPHQL_ONLY))


def selection_of(output: GraphQLOutputType, _path: tuple[str, ...] = ()) -> str:
    """`{ a b { c } }` for an object or union type; "" for a scalar or enum."""
    named = get_named_type(output)
    if is_leaf_type(named):
        return ""
    if named.name in _path:
        raise ValueError(f"cannot derive a selection: {' > '.join((*_path, named.name))} is a cycle")
    path = (*_path, named.name)
    if isinstance(named, GraphQLUnionType):
        return "{ " + " ".join(f"... on {member.name} {selection_of(member, path)}" for member in named.types) + " }"
    if not isinstance(named, GraphQLObjectType):
        raise ValueError(f"cannot derive a selection for {named}")
    parts = []
    for name, field in named.fields.items():
        if _graphql_only(field):
            continue
        required = [a for a, arg in field.args.items() if is_non_null_type(arg.type) and arg.default_value is Undefined]
        if required:
            raise ValueError(f"cannot derive a selection: {named.name}.{name} needs arguments {required}")
        sub = selection_of(field.type, path)
        parts.append(f"{name} {sub}" if sub else name)
    return "{ " + " ".join(parts) + " }"
