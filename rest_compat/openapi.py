"""The OpenAPI 3.1 document of /v2.0, generated at start-up from the route table and the GraphQL schema.

Nothing in it is written per route (docs/openapi.md). For each compiled route:
- parameters: path and query-string arguments with their JSON types, `required` for non-null
  arguments without a default, defaults, and bounds declared on the argument (schema/common.py: `bounds`);
- the request body: the `input` argument's GraphQL input type, or the body fields' arguments, as JSON
  Schema (required fields, bounds, `additionalProperties: false`: unknown fields are refused);
- the success envelopes: the reply's declared shape (schema/bindings.py: `shaped`) applied to the JSON
  Schema of the selected output fields, per status;
- the error envelopes: every code the route can give (authentication and rate limits, the request's
  own refusals, the declaration's errors, feature, limits and internal code, idempotency), grouped by
  HTTP status, each with the marker (`success: false` or `error: true`) it carries;
- `bearerAuth`, the scope (`x-required-scope` and in the description), the tag (the operation's domain).

A route whose schema cannot be derived (an unknown scalar, a custom reply without a shape, a shape
naming a field the output does not have) raises `OpenApiError`: start-up stops in development and
tests; in production the route is logged and left out of the document.
"""
from __future__ import annotations

import copy
import logging
import re
from typing import Any, Iterable

from graphql import (GraphQLEnumType, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLObjectType,
                     GraphQLScalarType, GraphQLUnionType)
from graphql.pyutils import Undefined

from leadline.resolvers.auth.scopes import FULL_ACCESS
from leadline.resolvers.errors import ERROR_STATUS, ERROR_STATUS_ALSO
from leadline.resolvers.runner import COMMON_ERRORS
from leadline.rest_compat.compile import CompiledRoute
from leadline.rest_compat.idempotency import HEADER as IDEMPOTENCY_HEADER
from leadline.rest_compat.idempotency import KEY_MAX as IDEMPOTENCY_KEY_MAX
from leadline.rest_compat.idempotency import REPLAYED as REPLAYED_HEADER
from leadline.rest_compat.idempotency import is_idempotent
from leadline.schema.common import BOUNDS, GRAPHQL_ONLY

log = logging.getLogger("leadline.openapi")

OPENAPI_PATH = "/v2.0/openapi.json"

SCALARS: dict[str, dict[str, Any]] = {
    "String": {"type": "string"},
    "ID": {"type": "string"},
    "Int": {"type": "integer", "minimum": -2**31, "maximum": 2**31 - 1},
    "Float": {"type": "number"},
    "Boolean": {"type": "boolean"},
    "DateTime": {"type": "string", "format": "date-time"},
    "JSON": {},
}

# Refusals made before the route's handler runs: they always carry `success: false`.
AUTH_CODES = ("API_KEY_MISSING", "INVALID_API_KEY", "ORG_ID_REQUIRED", "AUTHENTICATION_FAILED", "ORG_INACTIVE",
              "DOMAIN_NOT_WHITELISTED", "RATE_LIMIT_EXCEEDED_PER_SECOND", "RATE_LIMIT_EXCEEDED_PER_DAY")
SIZE_CODES = ("URI_TOO_LONG", "HEADERS_TOO_LARGE", "INTERNAL_SERVER_ERROR")
BODY_CODES = ("INVALID_JSON", "INVALID_BODY", "UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE")
IDEMPOTENCY_CODES = ("IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_KEY_IN_USE")

_PATH_PARAM = re.compile(r"{(\w+)(?::[^}]*)?}")


class OpenApiError(RuntimeError):
    """A route whose OpenAPI description cannot be derived."""


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if not schema:
        return schema  # any value, null included
    if "$ref" in schema or "anyOf" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    result = dict(schema)
    kind = result.get("type")
    if isinstance(kind, str):
        result["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        result["type"] = [*kind, "null"]
    if "enum" in result and None not in result["enum"]:
        result["enum"] = [*result["enum"], None]
    return result


def _bounds_of(definition: Any) -> dict[str, Any]:
    metadata = getattr(definition, "metadata", None) or {}
    return dict(metadata.get(BOUNDS) or {})


class SchemaView:
    """A JSON Schema (a part of an operation's output) as a custom reply's shape sees it."""

    def __init__(self, builder: "_Builder", schema: dict[str, Any]) -> None:
        self._builder = builder
        self.schema = schema

    def _resolved(self) -> dict[str, Any]:
        schema = self.schema
        while True:
            if "$ref" in schema:
                schema = self._builder.components[schema["$ref"].rsplit("/", 1)[-1]]
            elif "anyOf" in schema and len(schema["anyOf"]) == 2 and {"type": "null"} in schema["anyOf"]:
                schema = next(s for s in schema["anyOf"] if s != {"type": "null"})
            else:
                return schema

    def _object(self) -> dict[str, Any]:
        schema = self._resolved()
        if "properties" not in schema:
            raise OpenApiError(f"a reply shape expects an object, found {schema}")
        return schema

    def _new(self, schema: dict[str, Any]) -> "SchemaView":
        return SchemaView(self._builder, schema)

    def field(self, name: str) -> "SchemaView":
        properties = self._object()["properties"]
        if name not in properties:
            raise OpenApiError(f"a reply shape names the field {name!r}, which the output does not select")
        return self._new(properties[name])

    def fields(self) -> dict[str, "SchemaView"]:
        return {name: self._new(schema) for name, schema in self._object()["properties"].items()}

    @property
    def items(self) -> "SchemaView":
        schema = self._resolved()
        if "items" not in schema:
            raise OpenApiError(f"a reply shape expects a list, found {schema}")
        return self._new(schema["items"])

    def pick(self, *names: str, optional: Iterable[str] = ()) -> "SchemaView":
        optional = tuple(optional)
        properties = {name: self.field(name).schema for name in (*names, *optional)}
        return self._new({"type": "object", "properties": properties, "required": list(names)})

    def without(self, *names: str) -> "SchemaView":
        obj = self._object()
        for name in names:
            self.field(name)
        keep = [n for n in obj["properties"] if n not in names]
        return self.pick(*[n for n in keep if n in obj.get("required", ())],
                         optional=[n for n in keep if n not in obj.get("required", ())])

    def with_fields(self, **parts: "SchemaView") -> "SchemaView":
        obj = self._object()
        properties = {**obj["properties"], **{k: v.schema for k, v in parts.items()}}
        required = [*obj.get("required", ()), *[k for k in parts if k not in obj.get("required", ())]]
        return self._new({"type": "object", "properties": properties, "required": required})

    def map_of(self, values: "SchemaView") -> "SchemaView":
        return self._new({"type": "object", "additionalProperties": values.schema})

    def const(self, value: Any) -> "SchemaView":
        return self._new({"const": value})

    def string(self) -> "SchemaView":
        return self._new({"type": "string"})

    def boolean(self) -> "SchemaView":
        return self._new({"type": "boolean"})


class _Builder:
    """GraphQL types to JSON Schema; object and input types become components."""

    def __init__(self) -> None:
        self.components: dict[str, dict[str, Any]] = {}

    # --- outputs ---
    def output(self, gtype: Any, _path: tuple[str, ...] = ()) -> dict[str, Any]:
        if isinstance(gtype, GraphQLNonNull):
            return self._output_named(gtype.of_type, _path)
        return _nullable(self._output_named(gtype, _path))

    def _output_named(self, gtype: Any, path: tuple[str, ...]) -> dict[str, Any]:
        if isinstance(gtype, GraphQLList):
            return {"type": "array", "items": self.output(gtype.of_type, path)}
        if isinstance(gtype, (GraphQLScalarType, GraphQLEnumType)):
            return self._leaf(gtype)
        if isinstance(gtype, GraphQLUnionType):
            return {"anyOf": [self._output_named(member, path) for member in gtype.types]}
        if isinstance(gtype, GraphQLObjectType):
            return self._object(gtype, path)
        raise OpenApiError(f"cannot describe the output type {gtype}")

    def _object(self, gtype: GraphQLObjectType, path: tuple[str, ...]) -> dict[str, Any]:
        ref = {"$ref": f"#/components/schemas/{gtype.name}"}
        if gtype.name in self.components:
            return ref
        if gtype.name in path:
            raise OpenApiError(f"{' > '.join((*path, gtype.name))} is a cycle")
        properties: dict[str, Any] = {}
        for name, field in gtype.fields.items():
            definition = (field.extensions or {}).get("strawberry-definition")
            if definition is not None and (getattr(definition, "metadata", None) or {}).get(GRAPHQL_ONLY):
                continue
            schema = self.output(field.type, (*path, gtype.name))
            if field.description:
                schema = {**schema, "description": field.description} if schema else {"description": field.description}
            properties[name] = schema
        component: dict[str, Any] = {"type": "object", "properties": properties, "required": list(properties)}
        if gtype.description:
            component["description"] = gtype.description
        self.components[gtype.name] = component
        return ref

    @staticmethod
    def _leaf(gtype: Any) -> dict[str, Any]:
        if isinstance(gtype, GraphQLEnumType):
            return {"type": "string", "enum": list(gtype.values)}
        if gtype.name not in SCALARS:
            raise OpenApiError(f"the scalar {gtype.name} has no JSON Schema: add it to rest_compat/openapi.py SCALARS")
        schema = dict(SCALARS[gtype.name])
        if gtype.description and gtype.name not in ("String", "ID", "Int", "Float", "Boolean"):
            schema["description"] = gtype.description
        return schema

    # --- inputs ---
    def input(self, gtype: Any, bounds: dict[str, Any] | None = None) -> dict[str, Any]:
        if isinstance(gtype, GraphQLNonNull):
            return self._input_named(gtype.of_type, bounds)
        return _nullable(self._input_named(gtype, bounds))

    def _input_named(self, gtype: Any, bounds: dict[str, Any] | None) -> dict[str, Any]:
        if isinstance(gtype, GraphQLList):
            # GraphQL coerces a single value into a list of one; the document asks for the list.
            return {"type": "array", "items": self.input(gtype.of_type, bounds)}
        if isinstance(gtype, (GraphQLScalarType, GraphQLEnumType)):
            schema = self._leaf(gtype)
            if bounds:
                schema.update({k: v for k, v in bounds.items() if k != "default"})
                if "enum" in schema:
                    for keyword in ("minLength", "maxLength", "pattern"):
                        schema.pop(keyword, None)
            return schema
        if isinstance(gtype, GraphQLInputObjectType):
            return self._input_object(gtype)
        raise OpenApiError(f"cannot describe the input type {gtype}")

    def _input_object(self, gtype: GraphQLInputObjectType) -> dict[str, Any]:
        ref = {"$ref": f"#/components/schemas/{gtype.name}"}
        if gtype.name in self.components:
            return ref
        self.components[gtype.name] = {}  # placeholder: input types may refer to themselves
        properties, required = {}, []
        for name, field in gtype.fields.items():
            bounds = _bounds_of((field.extensions or {}).get("strawberry-definition"))
            schema = self.input(field.type, bounds)
            default = bounds.get("default", field.default_value)
            if default is not Undefined and default is not None:
                schema = {**schema, "default": default}
            if field.description:
                schema = {**schema, "description": field.description}
            properties[name] = schema
            if isinstance(field.type, GraphQLNonNull) and field.default_value is Undefined:
                required.append(name)
        component: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        if required:
            component["required"] = required
        if gtype.description:
            component["description"] = gtype.description
        self.components[gtype.name] = component
        return ref


# --- errors ---------------------------------------------------------------------------------------
def _statuses_of(code: str) -> tuple[int, ...]:
    return (ERROR_STATUS[code], *ERROR_STATUS_ALSO.get(code, ()))


def route_errors(route: CompiledRoute, idempotent: bool) -> dict[int, dict[str, set[str]]]:
    """status -> marker ("success" or "error") -> the codes a route can answer with."""
    op = route.operation
    spec = op.spec
    early = {*AUTH_CODES, *SIZE_CODES}
    if _PATH_PARAM.search(route.path):
        early.add("NOT_FOUND")  # a path parameter holding `/` matches no route
    handled = set(spec.allowed_errors) | set(COMMON_ERRORS)
    if route.body != "none":
        handled.update(BODY_CODES)
    if idempotent:
        handled.update(IDEMPOTENCY_CODES)
    table: dict[int, dict[str, set[str]]] = {}
    for code in early:
        for status in _statuses_of(code):
            table.setdefault(status, {}).setdefault("success", set()).add(code)
    for code in handled:
        if code not in ERROR_STATUS:
            raise OpenApiError(f"the error code {code} is not in resolvers/errors.py ERROR_STATUS")
        for status in _statuses_of(code):
            table.setdefault(status, {}).setdefault(op.marker.marker_for(code), set()).add(code)
    return table


ERROR_DETAIL = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "code": {"type": "string"}, "message": {"type": "string"}},
    "required": ["path", "code", "message"],
}


def _error_envelope(marker: str, codes: set[str]) -> dict[str, Any]:
    flag = {"success": {"const": False}} if marker == "success" else {"error": {"const": True}}
    return {
        "type": "object",
        "properties": {
            **flag,
            "code": {"type": "string", "enum": sorted(codes)},
            "message": {"type": "string"},
            "details": {"anyOf": [{"type": "array", "items": {"$ref": "#/components/schemas/ErrorDetail"}},
                                 {"type": "object"}]},
            "required_scope": {"type": "string"},
            "limitKey": {"type": "string"},
            "current": {},
            "limit": {},
            "retryAfter": {"type": "number"},
        },
        "required": [next(iter(flag)), "code", "message"],
    }


def _error_response(status: int, by_marker: dict[str, set[str]]) -> dict[str, Any]:
    variants = [_error_envelope(marker, codes) for marker, codes in sorted(by_marker.items())]
    schema = variants[0] if len(variants) == 1 else {"anyOf": variants}
    lines = []
    for marker, codes in sorted(by_marker.items()):
        flag = "`success: false`" if marker == "success" else "`error: true`"
        lines.append(f"{flag}: " + ", ".join(f"`{c}`" for c in sorted(codes)))
    response: dict[str, Any] = {"description": "; ".join(lines),
                                "content": {"application/json": {"schema": schema}}}
    if status == 429:
        response["headers"] = {"Retry-After": {"description": "Seconds to wait before retrying.",
                                               "schema": {"type": "integer"}}}
    return response


# --- routes ---------------------------------------------------------------------------------------
def _parameters(builder: _Builder, route: CompiledRoute, field: Any) -> tuple[list[dict], dict | None]:
    """The path and query parameters, and the request body."""
    path_params = set(_PATH_PARAM.findall(route.path))
    parameters = _path_and_query(builder, route, field, path_params)
    if route.body == "input":
        arg = field.args["input"]
        schema = builder.input(arg.type, _bounds_of((arg.extensions or {}).get("strawberry-definition")))
        return parameters, {"required": isinstance(arg.type, GraphQLNonNull),
                            "content": {"application/json": {"schema": _non_null_ref(schema)}}}
    if route.body == "none":
        return parameters, None
    properties, required = {}, []
    for name, arg in field.args.items():
        if name in path_params:
            continue
        bounds = _bounds_of((arg.extensions or {}).get("strawberry-definition"))
        schema = builder.input(arg.type, bounds)
        default = bounds.get("default", arg.default_value)
        if default is not Undefined and default is not None:
            schema = {**schema, "default": default}
        if arg.description:
            schema = {**schema, "description": arg.description}
        properties[name] = schema
        if isinstance(arg.type, GraphQLNonNull) and arg.default_value is Undefined:
            required.append(name)
    body_schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        body_schema["required"] = required
    return parameters, {"required": bool(required), "content": {"application/json": {"schema": body_schema}}}


def _non_null_ref(schema: dict[str, Any]) -> dict[str, Any]:
    """The body itself is never `null`: an absent body is an empty object."""
    if "anyOf" in schema and {"type": "null"} in schema["anyOf"]:
        return next(s for s in schema["anyOf"] if s != {"type": "null"})
    return schema


def _path_and_query(builder: _Builder, route: CompiledRoute, field: Any, path_params: set[str]) -> list[dict]:
    parameters = []
    for name, arg in field.args.items():
        in_path = name in path_params
        from_body = (route.body == "input" and name == "input") or (route.body == "fields" and not in_path)
        if from_body:
            continue
        bounds = _bounds_of((arg.extensions or {}).get("strawberry-definition"))
        schema = _non_null_ref(builder.input(arg.type, bounds))
        if isinstance(schema.get("type"), list):
            schema = {**schema, "type": next(t for t in schema["type"] if t != "null")}
        default = bounds.get("default", arg.default_value)
        if default is not Undefined and default is not None:
            schema["default"] = default
        if in_path and schema.get("type") == "string":
            schema.setdefault("minLength", 1)
            schema.setdefault("pattern", "^[^/]+$")
        required = in_path or (isinstance(arg.type, GraphQLNonNull) and arg.default_value is Undefined)
        parameter = {"name": name, "in": "path" if in_path else "query", "required": required, "schema": schema}
        if arg.description:
            parameter["description"] = arg.description
        parameters.append(parameter)
    return parameters


def _summary(description: str) -> str:
    first = description.split(". ")[0].rstrip(".")
    return first if len(first) <= 120 else first[:117] + "..."


def _operation(builder: _Builder, graphql_schema: Any, route: CompiledRoute) -> dict[str, Any]:
    op, binding = route.operation, route.binding
    root = graphql_schema.query_type if op.kind == "query" else graphql_schema.mutation_type
    field = root.fields[op.name]
    shape = getattr(binding.reply, "shape", None)
    if shape is None:
        raise OpenApiError(f"the reply {getattr(binding.reply, '__name__', binding.reply)!r} declares no shape: "
                           "decorate it with schema/bindings.py `shaped(...)`")
    output = SchemaView(builder, builder.output(field.type))
    envelopes = shape(output)
    parameters, body = _parameters(builder, route, field)
    idempotent = is_idempotent(route)
    if idempotent:
        parameters.append({
            "name": IDEMPOTENCY_HEADER, "in": "header", "required": False,
            "description": "Makes a retry safe: the same key with the same body within 24 hours replays the first "
                           "response (`Idempotent-Replayed: true`) instead of acting again (docs/idempotency.md).",
            "schema": {"type": "string", "minLength": 1, "maxLength": IDEMPOTENCY_KEY_MAX, "pattern": "^[!-~]+$"},
        })
    responses: dict[str, Any] = {}
    for status, parts in envelopes.items():
        status = status or binding.status
        properties = {"success": {"const": True}, **{k: v.schema for k, v in parts.items()}}
        schema = {"type": "object", "properties": properties, "required": list(properties)}
        existing = responses.get(str(status))
        if existing is not None:
            schema = {"anyOf": [existing["content"]["application/json"]["schema"], schema]}
        response: dict[str, Any] = {"description": "Success.", "content": {"application/json": {"schema": schema}}}
        if idempotent:
            response["headers"] = {REPLAYED_HEADER: {
                "description": "`true` when this is the stored response of an earlier request with the same "
                               "Idempotency-Key; absent on the first response.",
                "schema": {"type": "string", "enum": ["true"]}}}
        responses[str(status)] = response
    for status, by_marker in sorted(route_errors(route, idempotent).items()):
        if str(status) in responses:
            raise OpenApiError(f"status {status} is both a success and an error")
        responses[str(status)] = _error_response(status, by_marker)
    scope = op.spec.scope
    scope_text = "a full-access key (legacy, or scope `*`)" if scope == FULL_ACCESS else f"`{scope}`"
    description = [op.description, "", f"**Scope:** {scope_text}."]
    if op.spec.feature:
        description.append(f"**Plan feature:** `{op.spec.feature}`.")
    if op.spec.limits:
        description.append("**Plan limits:** " + ", ".join(f"`{k}`" for k in op.spec.limits) + ".")
    if idempotent:
        description.append("**Idempotent** with an `Idempotency-Key` header.")
    operation: dict[str, Any] = {
        "operationId": op.name,
        "summary": _summary(op.description),
        "description": "\n".join(description),
        "tags": [op.domain],
        "x-required-scope": scope,
        "parameters": parameters,
        "responses": dict(sorted(responses.items())),
    }
    if body is not None:
        operation["requestBody"] = body
    if not parameters:
        del operation["parameters"]
    return operation


INFO_DESCRIPTION = """\
The REST surface of Leadline (`/v2.0`), generated from the service's operation declarations.

**Authentication:** every call sends `Authorization: Bearer <API key>`; each operation names the
scope it needs (`x-required-scope`). Create a key with `leadline admin create-key`.

**Envelopes:** success is `{"success": true, "data": ...}` (lists add `pagination` or `meta`);
errors are `{"success": false, "code", "message"}`, or `{"error": true, ...}` for the route groups
the spec marks so; each response lists its codes.

**Idempotency:** POSTs that create or send accept an `Idempotency-Key` header (docs/idempotency.md).
"""


def build_openapi(strawberry_schema: Any, routes: Iterable[CompiledRoute], *, strict: bool = True,
                  title: str = "Leadline API", version: str = "2.0") -> dict[str, Any]:
    """The document; `strict` raises OpenApiError on a route that cannot be described, otherwise it is
    logged and left out."""
    graphql_schema = strawberry_schema._schema
    builder = _Builder()
    paths: dict[str, dict[str, Any]] = {}
    tags: list[str] = []
    for route in routes:
        where = f"{route.method} {route.path} ({route.operation.name})"
        snapshot = None if strict else copy.deepcopy(builder.components)
        try:
            operation = _operation(builder, graphql_schema, route)
        except OpenApiError as exc:
            if strict:
                raise OpenApiError(f"{where}: {exc}") from None
            log.error("OpenAPI: %s left out: %s", where, exc)
            builder.components = snapshot
            continue
        path = _PATH_PARAM.sub(lambda m: "{" + m.group(1) + "}", route.path)
        paths.setdefault(path, {})[route.method.lower()] = operation
        if route.operation.domain not in tags:
            tags.append(route.operation.domain)
    builder.components["ErrorDetail"] = ERROR_DETAIL
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": version, "description": INFO_DESCRIPTION},
        "tags": [{"name": tag} for tag in tags],
        "paths": paths,
        "components": {
            "schemas": dict(sorted(builder.components.items())),
            "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer",
                                               "description": "An API key: `Authorization: Bearer <key>`."}},
        },
        "security": [{"bearerAuth": []}],
    }
