"""Start-up compilation of the route table: parse and validate every operation once.

A route whose operation does not validate against the schema, selects more than one root
field, or declares a scope different from its operation's field stops the service at start-up.
"""
from __future__ import annotations

from dataclasses import dataclass

from graphql import (
    DocumentNode,
    ListTypeNode,
    NonNullTypeNode,
    OperationDefinitionNode,
    TypeNode,
    parse,
    validate,
)

from leadline.rest_compat.table import Route
from leadline.schema.permissions import scope_of

QUERY_STRING_TYPES = {"Int", "Float", "Boolean", "String", "ID"}


@dataclass(frozen=True)
class VariableSpec:
    name: str
    type_name: str
    required: bool
    is_list: bool


@dataclass(frozen=True)
class CompiledRoute:
    route: Route
    document: DocumentNode
    root_field: str
    variables: dict[str, VariableSpec]


def _unwrap(node: TypeNode) -> tuple[str, bool, bool]:
    required = isinstance(node, NonNullTypeNode)
    if required:
        node = node.type
    is_list = isinstance(node, ListTypeNode)
    while isinstance(node, (ListTypeNode, NonNullTypeNode)):
        node = node.type
    return node.name.value, required, is_list


def _root_fields(strawberry_schema) -> dict[str, object]:
    fields = {}
    converter = strawberry_schema.config.name_converter
    for root in (strawberry_schema.query, strawberry_schema.mutation):
        if root is None:
            continue
        for f in root.__strawberry_definition__.fields:
            fields[converter.get_graphql_name(f)] = f
    return fields


def compile_route(strawberry_schema, route: Route, root_fields: dict[str, object] | None = None) -> CompiledRoute:
    where = f"{route.method} {route.path}"
    document = parse(route.operation)
    errors = validate(strawberry_schema._schema, document)
    if errors:
        raise RuntimeError(f"{where}: operation does not validate: {errors[0].message}")
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if len(operations) != 1 or len(operations[0].selection_set.selections) != 1:
        raise RuntimeError(f"{where}: an operation must select exactly one root field")
    op = operations[0]
    root = op.selection_set.selections[0]
    if root.alias is not None:
        raise RuntimeError(f"{where}: the root field must not be aliased")
    fields = root_fields if root_fields is not None else _root_fields(strawberry_schema)
    declared = scope_of(fields[root.name.value])
    if declared != route.scope:
        raise RuntimeError(f"{where}: route scope {route.scope!r} differs from field scope {declared!r}")
    variables = {}
    for definition in op.variable_definitions or ():
        type_name, required, is_list = _unwrap(definition.type)
        name = definition.variable.name.value
        from_body = (route.body == "input" and name == "input") or route.body == "fields"
        if not from_body and type_name not in QUERY_STRING_TYPES:
            raise RuntimeError(f"{where}: ${name} of type {type_name} cannot come from a path or query string")
        variables[name] = VariableSpec(name, type_name, required, is_list)
    if route.body == "input" and "input" not in variables:
        raise RuntimeError(f"{where}: body='input' needs a $input variable")
    return CompiledRoute(route, document, root.name.value, variables)


def compile_routes(strawberry_schema, routes: list[Route]) -> list[CompiledRoute]:
    seen = set()
    root_fields = _root_fields(strawberry_schema)
    compiled = []
    for route in routes:
        key = (route.method, route.path)
        if key in seen:
            raise RuntimeError(f"duplicate route {route.method} {route.path}")
        seen.add(key)
        compiled.append(compile_route(strawberry_schema, route, root_fields))
    return compiled
