"""The tools: one per REST route, derived at start-up from the operation declarations.

Every declared operation with an `McpTool` is a tool of that name; its route's compiled GraphQL
operation (rest_compat/compile.py: parsed and validated once) is what a call runs. Where two operations
share a name, the one without a `variant` is the tool's base and the other is selected by an argument
(`McpTool.variant`): `scheduleId` present selects the single scheduled message, `type=custom` the custom
field definitions, `category` one category's follow-ups (it fills that route's `{name}`), and so on.

A tool's arguments are its route's: path and query parameters by name, and the JSON body's fields
(flattened: a body field named like a path parameter, such as the new `name` of a renamed category, is
`newName`). Their input schema comes from schemas.py (GraphQL types plus constraints.py). Read-only tools
(queries) carry `readOnlyHint`; a tool whose route is a DELETE carries `destructiveHint`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal

import mcp_types as types
from graphql import GraphQLField, GraphQLInputObjectType, get_named_type

from leadline.mcp_server.constraints import ARGUMENTS, FIELDS, ONE_OF, REQUIRED
from leadline.mcp_server.schemas import declared_bounds, is_required, merge, property_schema
from leadline.resolvers.auth.snapshots import KeySnapshot
from leadline.resolvers.errors import detail, validation_error
from leadline.resolvers.json_limits import clip
from leadline.rest_compat.compile import CompiledRoute, VariableSpec, compile_routes
from leadline.rest_compat.handler import _coerce_query as coerce_query  # REST's query-string coercion
from leadline.schema.operations import Operation

_PATH_PARAM = re.compile(r"{(\w+)}")


@dataclass(frozen=True)
class Argument:
    """A tool argument and what it fills: a GraphQL variable, or a field of the `input` body."""

    name: str
    target: Literal["variable", "input"]
    field: str
    schema: dict[str, Any]
    required: bool
    # For a variable: whether REST reads it from the path or query string (there, text is coerced to the
    # variable's type, so a tool takes "20" for 20 as REST does).
    from_url: bool = False


@dataclass(frozen=True)
class Route:
    """One operation a tool runs, with the arguments it takes."""

    compiled: CompiledRoute
    arguments: dict[str, Argument]
    # A tool argument that only selects this route (`type=custom`): accepted, passed to nothing.
    ignored: frozenset[str] = frozenset()

    @property
    def operation(self) -> Operation:
        return self.compiled.operation


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    base: Route
    variant: Route | None
    selector: str | None
    selector_value: str | None
    input_schema: dict[str, Any]
    read_only: bool
    destructive: bool
    definition: types.Tool = field(repr=False)

    @property
    def scope(self) -> str:
        return self.base.operation.spec.scope

    def permitted(self, key: KeySnapshot | None) -> bool:
        """Whether the key's scopes allow this tool (the runner's scope rule: `*` needs full access)."""
        if key is None:
            return False
        if key.full_access:
            return True
        return all(r.operation.spec.scope in key.scopes for r in self.routes)

    @property
    def routes(self) -> tuple[Route, ...]:
        return (self.base,) if self.variant is None else (self.base, self.variant)

    def route_for(self, arguments: dict[str, Any]) -> Route:
        if self.variant is None or self.selector is None:
            return self.base
        value = arguments.get(self.selector)
        if self.selector_value is not None:
            chosen = isinstance(value, str) and value.strip().lower() == self.selector_value
        else:
            chosen = value is not None and value != ""
        return self.variant if chosen else self.base

    def variables(self, route: Route, arguments: dict[str, Any]) -> dict[str, Any]:
        """The GraphQL variables of `route` for these arguments; VALIDATION_ERROR for an argument the tool
        does not take (arguments of the tool's other route are left aside)."""
        values: dict[str, Any] = {}
        body: dict[str, Any] = {}
        unknown = []
        others = {name for r in self.routes if r is not route for name in r.arguments}
        for name, value in arguments.items():
            argument = route.arguments.get(name)
            if argument is None:
                if name not in route.ignored and name not in others:
                    unknown.append(name)
                continue
            if argument.target == "input":
                body[argument.field] = value
            else:
                spec = route.compiled.variables[argument.field]
                values[argument.field] = _coerce(spec, value) if argument.from_url else value
        if unknown:
            raise validation_error([detail(clip(n), "UNKNOWN_FIELD", f"'{clip(n)}' is not an argument of {self.name}")
                                    for n in unknown[:20]])
        if route.compiled.body == "input":
            values["input"] = body
        return values


def _coerce(spec: VariableSpec, value: Any) -> Any:
    """A path or query parameter as REST has it: text is coerced to the variable's type by REST's own
    coercion (the same refusals), and a number or boolean for a text parameter becomes its text."""
    if isinstance(value, str):
        return coerce_query(spec, value)
    if spec.type_name in ("String", "ID") and isinstance(value, (bool, int, float)):
        return ("true" if value else "false") if isinstance(value, bool) else str(value)
    return value


def _root_field(strawberry_schema, op: Operation) -> GraphQLField:
    graphql = strawberry_schema._schema
    root = graphql.query_type if op.kind == "query" else graphql.mutation_type
    return root.fields[op.name]


def route_arguments(strawberry_schema, compiled: CompiledRoute) -> dict[str, Argument]:
    op = compiled.operation
    graphql_field = _root_field(strawberry_schema, op)
    overlays = ARGUMENTS.get(op.name, {})
    required = REQUIRED.get(op.name, ())
    path_params = set(_PATH_PARAM.findall(compiled.path))
    found: dict[str, Argument] = {}
    for name, arg in graphql_field.args.items():
        if compiled.body == "input" and name == "input":
            input_type = get_named_type(arg.type)
            assert isinstance(input_type, GraphQLInputObjectType)
            type_overlays = FIELDS.get(input_type.name, {})
            for field_name, input_field in input_type.fields.items():
                tool_name = (field_name if field_name not in graphql_field.args
                             else f"new{field_name[0].upper()}{field_name[1:]}")
                overlay = merge(merge(declared_bounds(input_field), type_overlays.get(field_name)),
                                overlays.get(field_name))
                schema = property_schema(input_field.type, input_field.description, overlay, (input_type.name,))
                found[tool_name] = Argument(tool_name, "input", field_name, schema,
                                            is_required(input_field.type) or field_name in required)
            continue
        # REST reads it from the URL (path or query string) unless the body's fields are the arguments.
        from_url = name in path_params or compiled.body != "fields"
        schema = property_schema(arg.type, arg.description, merge(declared_bounds(arg), overlays.get(name)))
        found[name] = Argument(name, "variable", name, schema, is_required(arg.type) or name in required, from_url)
    return found


def _title(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _describe(base: Route, variant: Route | None, selector: str | None, selector_value: str | None) -> str:
    op = base.operation
    text = op.description
    if variant is not None and selector is not None:
        when = f"`{selector}`={selector_value}" if selector_value else f"`{selector}`"
        text += f" With {when}: {variant.operation.description[0].lower()}{variant.operation.description[1:]}"
    if note := ONE_OF.get(op.name):
        text += f" {note}"
    routes = f"{base.compiled.method} {base.compiled.path}"
    if variant is not None:
        routes += f", {variant.compiled.method} {variant.compiled.path}"
    return f"{text} (REST {routes}; scope {op.spec.scope})"


def _selected_variant(strawberry_schema, compiled: CompiledRoute, selector: str) -> Route:
    """The variant route, its selecting argument named as the tool names it: an argument of its own, or
    the one path parameter it fills (`category` → `{name}`), or nothing it takes (`type=custom`)."""
    arguments = route_arguments(strawberry_schema, compiled)
    if selector in arguments:
        return Route(compiled, arguments)
    path_params = _PATH_PARAM.findall(compiled.path)
    if len(path_params) == 1 and path_params[0] in arguments:
        renamed = arguments.pop(path_params[0])
        arguments[selector] = Argument(selector, renamed.target, renamed.field, renamed.schema, renamed.required,
                                       renamed.from_url)
        return Route(compiled, arguments)
    return Route(compiled, arguments, frozenset({selector}))


def _input_schema(base: Route, variant: Route | None, selector: str | None,
                  selector_value: str | None) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for route in (base, variant) if variant is not None else (base,):
        for name, argument in route.arguments.items():
            properties.setdefault(name, argument.schema)
    if variant is not None and selector is not None and selector_value is None:
        note = {"description": f"Optional; when given: {variant.operation.description}"}
        properties[selector] = merge(dict(properties.get(selector, {"type": "string"})), note)
    required = [n for n, a in base.arguments.items() if a.required and n != selector]
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


class Catalogue:
    """The tools of a schema's declared operations, built once (their routes compiled once)."""

    def __init__(self, strawberry_schema, operations: Iterable[Operation]) -> None:
        self.schema = strawberry_schema
        compiled = {c.operation.name: c for c in compile_routes(strawberry_schema, operations)}
        grouped: dict[str, list[CompiledRoute]] = {}
        for c in compiled.values():
            if c.operation.mcp is not None:
                grouped.setdefault(c.operation.mcp.name, []).append(c)
        self.tools: dict[str, Tool] = {}
        for name, routes in grouped.items():
            bases = [c for c in routes if c.operation.mcp.variant is None]
            variants = [c for c in routes if c.operation.mcp.variant is not None]
            if len(bases) != 1 or len(variants) > 1:
                raise RuntimeError(f"MCP tool {name}: one operation without a variant and at most one with one")
            base = Route(bases[0], route_arguments(strawberry_schema, bases[0]))
            variant = selector = selector_value = None
            if variants:
                selector, _, value = variants[0].operation.mcp.variant.partition("=")
                selector_value = value.lower() or None
                variant = _selected_variant(strawberry_schema, variants[0], selector)
            read_only = all(r.operation.kind == "query" for r in (base, variant) if r is not None)
            destructive = any(r.compiled.method == "DELETE" for r in (base, variant) if r is not None)
            description = _describe(base, variant, selector, selector_value)
            input_schema = _input_schema(base, variant, selector, selector_value)
            title = _title(name)
            annotations = types.ToolAnnotations(title=title, read_only_hint=read_only,
                                                destructive_hint=None if read_only else destructive,
                                                idempotent_hint=True if read_only else None)
            definition = types.Tool(name=name, title=title, description=description, input_schema=input_schema,
                                    annotations=annotations)
            self.tools[name] = Tool(name, title, description, base, variant, selector, selector_value, input_schema,
                                    read_only, destructive, definition)

    def listed_for(self, key: KeySnapshot | None) -> list[types.Tool]:
        """The tools a key may call, in declaration order."""
        return [t.definition for t in self.tools.values() if t.permitted(key)]

    def input_schema(self, name: str) -> dict[str, Any] | None:
        tool = self.tools.get(name)
        return tool.input_schema if tool else None
