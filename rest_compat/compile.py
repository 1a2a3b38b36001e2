"""Start-up compilation of the REST routes from the operation declarations.

For each declared operation with a `Rest` binding: the GraphQL document (every argument as a
variable, every output field selected) is generated, parsed and validated once; path parameters
must be arguments; query-string and path arguments must be scalars. Anything that cannot be
derived stops the service at start-up.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Literal

from graphql import DocumentNode, GraphQLField, get_named_type, is_list_type, is_non_null_type, parse, validate

from leadline.rest_compat.selection import selection_of
from leadline.schema.bindings import Rest
from leadline.schema.operations import Operation

QUERY_STRING_TYPES = {"Int", "Float", "Boolean", "String", "ID"}
_PATH_PARAM = re.compile(r"{(\w+)}")


@dataclass(frozen=True)
class VariableSpec:
    name: str
    type_name: str
    required: bool
    is_list: bool


@dataclass(frozen=True)
class CompiledRoute:
    operation: Operation
    binding: Rest
    body: Literal["none", "input", "fields"]
    document: DocumentNode
    variables: dict[str, VariableSpec]

    @property
    def method(self) -> str:
        return self.binding.method

    @property
    def path(self) -> str:
        return self.binding.path


def _body_mode(binding: Rest, arguments: Iterable[str]) -> Literal["none", "input", "fields"]:
    if binding.body is not None:
        return binding.body
    if binding.method in ("GET", "DELETE"):
        return "none"
    return "input" if "input" in arguments else "fields"


def _root_field(graphql_schema, op: Operation) -> GraphQLField:
    root = graphql_schema.query_type if op.kind == "query" else graphql_schema.mutation_type
    return root.fields[op.name]


def document_for(graphql_schema, op: Operation) -> str:
    """`query($a: Int) { field(a: $a) { ...every output field } }`."""
    field = _root_field(graphql_schema, op)
    variables = ", ".join(f"${name}: {arg.type}" for name, arg in field.args.items())
    arguments = ", ".join(f"{name}: ${name}" for name in field.args)
    head = f"{op.kind}({variables})" if variables else op.kind
    call = f"{op.name}({arguments})" if arguments else op.name
    return f"{head} {{ {call} {selection_of(field.type)} }}"


def compile_route(strawberry_schema, op: Operation) -> CompiledRoute:
    binding = op.rest
    where = f"{binding.method} {binding.path} ({op.name})"
    graphql_schema = strawberry_schema._schema
    try:
        source = document_for(graphql_schema, op)
    except ValueError as exc:
        raise RuntimeError(f"{where}: {exc}") from None
    document = parse(source)
    errors = validate(graphql_schema, document)
    if errors:
        raise RuntimeError(f"{where}: generated operation does not validate: {errors[0].message}")
    field = _root_field(graphql_schema, op)
    body = _body_mode(binding, field.args)
    if body == "input" and "input" not in field.args:
        raise RuntimeError(f"{where}: body 'input' needs an `input` argument")
    path_params = _PATH_PARAM.findall(binding.path)
    missing = [p for p in path_params if p not in field.args]
    if missing:
        raise RuntimeError(f"{where}: path parameters {missing} are not arguments of the operation")
    variables = {}
    for name, arg in field.args.items():
        type_name = get_named_type(arg.type).name
        required = is_non_null_type(arg.type)
        inner = arg.type.of_type if required else arg.type
        from_body = (body == "input" and name == "input") or (body == "fields" and name not in path_params)
        if not from_body and type_name not in QUERY_STRING_TYPES:
            raise RuntimeError(f"{where}: ${name} of type {type_name} cannot come from a path or query string")
        variables[name] = VariableSpec(name, type_name, required, is_list_type(inner))
    return CompiledRoute(op, binding, body, document, variables)


def compile_routes(strawberry_schema, operations: Iterable[Operation]) -> list[CompiledRoute]:
    seen: set[tuple[str, str]] = set()
    compiled = []
    for op in operations:
        if op.rest is None:
            continue
        key = (op.rest.method, op.rest.path)
        if key in seen:
            raise RuntimeError(f"duplicate route {op.rest.method} {op.rest.path}")
        seen.add(key)
        compiled.append(compile_route(strawberry_schema, op))
    return compiled
