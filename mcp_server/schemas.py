"""JSON Schemas of tool arguments, from the GraphQL types the REST validation coerces them with.

A GraphQL argument or input field becomes a JSON-schema property of the same (camelCase) name: `String`
and `ID` a string, `Int` an integer, `Float` a number, `Boolean` a boolean, `DateTime` a date-time
string, `JSON` any value, a list an array, an input object an object that admits only its own fields
(`additionalProperties: false`, as the typed input refuses unknown fields). A non-null type is required.
Bounds declared on a GraphQL argument or input field (schema/common.py: `bounds`, which the OpenAPI
document publishes too) are added, then `constraints.py` adds what neither says (required fields, enums,
bounds, patterns, defaults), keyed by the same GraphQL names; GraphQL descriptions become `description`s.
"""
from __future__ import annotations

from typing import Any

from graphql import (GraphQLEnumType, GraphQLInputObjectType, GraphQLInputType, GraphQLList, GraphQLNonNull,
                     GraphQLScalarType)

from leadline.mcp_server.constraints import FIELDS, REQUIRED
from leadline.schema.common import BOUNDS

SCALARS: dict[str, dict[str, Any]] = {
    "String": {"type": "string"},
    "ID": {"type": "string"},
    "Int": {"type": "integer"},
    "Float": {"type": "number"},
    "Boolean": {"type": "boolean"},
    "DateTime": {"type": "string", "format": "date-time"},
    "JSON": {},
}


def declared_bounds(element: Any) -> dict[str, Any]:
    """The `bounds(...)` metadata of a GraphQL argument or input field (its Strawberry definition's)."""
    definition = (getattr(element, "extensions", None) or {}).get("strawberry-definition")
    metadata = getattr(definition, "metadata", None) or {}
    return dict(metadata.get(BOUNDS) or {})


def merge(base: dict[str, Any], overlay: dict[str, Any] | None) -> dict[str, Any]:
    """`overlay`'s keywords over `base`'s; both descriptions are kept."""
    if not overlay:
        return base
    out = {**base, **overlay}
    first, second = base.get("description"), overlay.get("description")
    if first and second and second not in first:
        out["description"] = f"{first} {second}"
    return out


def type_schema(type_: GraphQLInputType, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    """The JSON Schema of a GraphQL input type (nullability aside: see `is_required`)."""
    if isinstance(type_, GraphQLNonNull):
        return type_schema(type_.of_type, seen)
    if isinstance(type_, GraphQLList):
        return {"type": "array", "items": type_schema(type_.of_type, seen)}
    if isinstance(type_, GraphQLEnumType):
        return {"type": "string", "enum": list(type_.values)}
    if isinstance(type_, GraphQLScalarType):
        return dict(SCALARS.get(type_.name, {}))
    if isinstance(type_, GraphQLInputObjectType):
        if type_.name in seen:  # a recursive input: its nested level is left open
            return {"type": "object"}
        overlays = FIELDS.get(type_.name, {})
        fields = {name: (field.type, field.description) for name, field in type_.fields.items()}
        bounds = {name: merge(declared_bounds(field), overlays.get(name)) for name, field in type_.fields.items()}
        return object_schema(type_.name, fields, bounds, REQUIRED.get(type_.name, ()), (*seen, type_.name))
    return {}


def is_required(type_: GraphQLInputType) -> bool:
    return isinstance(type_, GraphQLNonNull)


def property_schema(type_: GraphQLInputType, description: str | None, overlay: dict[str, Any] | None,
                    seen: tuple[str, ...] = ()) -> dict[str, Any]:
    base = type_schema(type_, seen)
    if description:
        base = merge(base, {"description": description})
    return merge(base, overlay)


def object_schema(name: str, fields: dict[str, tuple[GraphQLInputType, str | None]],
                  overlays: dict[str, dict[str, Any]], required: tuple[str, ...],
                  seen: tuple[str, ...] = ()) -> dict[str, Any]:
    properties = {field: property_schema(type_, description, overlays.get(field), seen)
                  for field, (type_, description) in fields.items()}
    needed = [f for f, (type_, _) in fields.items() if is_required(type_) or f in required]
    out: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if needed:
        out["required"] = needed
    return out
