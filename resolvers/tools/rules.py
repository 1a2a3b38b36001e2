"""The rules of each tool type beyond what its field definitions say (placeholders, conditional fields,
the interactive payloads): each `rule(payload, report)` adds every problem it finds."""
from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from leadline.resolvers.tools import interactive, pagemessages
from leadline.resolvers.tools.fields import Report, join

PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
PARAMETER_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
STATIC_PLACEHOLDERS = ("current_date", "current_time", "current_datetime", "phone_number")
JSON_SCHEMA_TYPES = ("string", "number", "integer", "boolean", "array", "object")
MAX_PARAMETERS = 50
EXAMPLE_PARAMETERS = {"type": "object", "properties": {"order_id": {"type": "string", "description": "The order number"}},
                      "required": ["order_id"]}
AUTH_NEEDS = {"bearer": ("token",), "basic": ("username", "password"),
              "api_key": ("apiKeyIn", "apiKeyName", "apiKeyValue"), "none": ()}


def placeholders(text: str) -> list[str]:
    return PLACEHOLDER.findall(text or "")


def declared_parameters(payload: dict[str, Any]) -> set[str]:
    params = payload.get("parameters")
    props = params.get("properties") if isinstance(params, dict) else None
    return set(props) if isinstance(props, dict) else set()


# --- function -------------------------------------------------------------------------------
def function_rules(payload: dict[str, Any], report: Report) -> None:
    _server_url(payload, report)
    _auth(payload.get("auth"), report)
    _headers(payload.get("headers"), report)
    _body(payload, report)
    _parameters(payload.get("parameters"), report)


def _server_url(payload: dict[str, Any], report: Report) -> None:
    url = payload.get("serverUrl")
    if not isinstance(url, str) or not url.strip():
        return
    example = "https://api.example.com/orders/{{order_id}}"
    names = placeholders(url)
    bad = [n for n in names if not PARAMETER_NAME.match(n)]
    for name in bad:
        report.add("serverUrl", "INVALID_PLACEHOLDER", f"serverUrl placeholder '{{{{{name}}}}}' must be lowercase "
                                                      "letters, digits and '_'", example)
    parts = urlsplit(PLACEHOLDER.sub("x", url))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        report.add("serverUrl", "INVALID_URL", "serverUrl must be an http(s) URL", example)
        return
    declared = declared_parameters(payload)
    for name in dict.fromkeys(n for n in names if n not in bad):
        if name not in declared:
            report.add("serverUrl", "PLACEHOLDER_NOT_DECLARED",
                       f"serverUrl uses {{{{{name}}}}}, which parameters.properties does not declare",
                       {**EXAMPLE_PARAMETERS, "properties": {name: {"type": "string"}}, "required": [name]})


def _auth(auth: Any, report: Report) -> None:
    if not isinstance(auth, dict):
        return
    kind = auth.get("type") or "none"
    for name in AUTH_NEEDS.get(kind, ()):
        value = auth.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            report.add(f"auth.{name}", "REQUIRED", f"auth.{name} is required when auth.type is {kind}")


def _headers(headers: Any, report: Report) -> None:
    if not isinstance(headers, list):
        return
    seen: set[str] = set()
    for i, header in enumerate(headers):
        key = header.get("key") if isinstance(header, dict) else None
        if isinstance(key, str) and key.strip():
            lowered = key.strip().lower()
            if lowered in seen:
                report.add(f"headers[{i}].key", "DUPLICATE_HEADER",
                           f"header '{key}' is given twice (header names are case-insensitive)")
            seen.add(lowered)


def _body(payload: dict[str, Any], report: Report) -> None:
    if payload.get("bodyMode") != "custom":
        return
    custom = payload.get("customPayload")
    example = '{"orderId": "{{order_id}}", "source": "assistant"}'
    if not isinstance(custom, str) or not custom.strip():
        report.add("customPayload", "REQUIRED", "customPayload is required when bodyMode is custom", example)
        return
    if payload.get("requestMethod") in ("GET", "DELETE"):
        report.add("bodyMode", "BODY_NOT_ALLOWED", f"a {payload['requestMethod']} request carries no body: use "
                                                  "bodyMode auto (arguments become query parameters) or none")
    names = placeholders(custom)
    for name in names:
        if not PARAMETER_NAME.match(name):
            report.add("customPayload", "INVALID_PLACEHOLDER", f"customPayload placeholder '{{{{{name}}}}}' must be "
                                                              "lowercase letters, digits and '_'", example)
    try:
        json.loads(PLACEHOLDER.sub("0", custom))
    except ValueError:
        report.add("customPayload", "INVALID_JSON_TEMPLATE",
                   "customPayload must be JSON once its {{variable}} placeholders are filled in", example)
        return
    declared = declared_parameters(payload)
    for name in dict.fromkeys(n for n in names if PARAMETER_NAME.match(n)):
        if name not in declared:
            report.add("customPayload", "PLACEHOLDER_NOT_DECLARED",
                       f"customPayload uses {{{{{name}}}}}, which parameters.properties does not declare")


def _parameters(params: Any, report: Report) -> None:
    if not isinstance(params, dict):
        return
    if params.get("type", "object") != "object":
        report.add("parameters.type", "INVALID_VALUE", "parameters.type must be 'object'", EXAMPLE_PARAMETERS)
    props = params.get("properties", {})
    if not isinstance(props, dict):
        report.add("parameters.properties", "INVALID_TYPE", "parameters.properties must be an object",
                   EXAMPLE_PARAMETERS["properties"])
        props = {}
    if len(props) > MAX_PARAMETERS:
        report.add("parameters.properties", "TOO_MANY", f"at most {MAX_PARAMETERS} parameters")
    for name, schema in props.items():
        where = f"parameters.properties.{name}"
        if not PARAMETER_NAME.match(name):
            report.add(where, "INVALID_PROPERTY_NAME", f"parameter name '{name}' must be lowercase letters, digits and "
                                                       "'_', starting with a letter", "order_id")
        if not isinstance(schema, dict):
            report.add(where, "INVALID_TYPE", f"{where} must be an object such as {{\"type\": \"string\"}}",
                       {"type": "string", "description": "What the value is"})
            continue
        if schema.get("type") not in JSON_SCHEMA_TYPES:
            report.add(join(where, "type"), "INVALID_VALUE", f"{where}.type must be one of: "
                                                             f"{', '.join(JSON_SCHEMA_TYPES)}", "string")
        if "enum" in schema and not isinstance(schema["enum"], list):
            report.add(join(where, "enum"), "INVALID_TYPE", f"{where}.enum must be an array")
        if "description" in schema and not isinstance(schema["description"], str):
            report.add(join(where, "description"), "INVALID_TYPE", f"{where}.description must be a string")
    required = params.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        report.add("parameters.required", "INVALID_TYPE", "parameters.required must be an array of parameter names",
                   ["order_id"])
    else:
        for i, name in enumerate(required):
            if name not in props:
                report.add(f"parameters.required[{i}]", "UNKNOWN_PARAMETER",
                           f"'{name}' is required but not declared in parameters.properties")


# --- static_tool, media_attachments ---------------------------------------------------------
def static_rules(payload: dict[str, Any], report: Report) -> None:
    for name in placeholders(payload.get("response") or ""):
        if name not in STATIC_PLACEHOLDERS:
            report.add("response", "UNKNOWN_PLACEHOLDER", f"{{{{{name}}}}} is not a placeholder: use "
                       + ", ".join(f"{{{{{p}}}}}" for p in STATIC_PLACEHOLDERS), "{{current_date}}")


def media_rules(payload: dict[str, Any], report: Report) -> None:
    ids = payload.get("mediaIds")
    if isinstance(ids, list):
        seen: set[str] = set()
        for i, value in enumerate(ids):
            if isinstance(value, str) and value in seen:
                report.add(f"mediaIds[{i}]", "DUPLICATE", f"media id {value} is listed twice")
            seen.add(value)


# --- the three template types ---------------------------------------------------------------
def message_template_rules(payload: dict[str, Any], report: Report) -> None:
    template_type = payload.get("templateType")
    if template_type not in interactive.TEMPLATE_TYPES:
        return  # reported by the field definition
    check_chat_message(report, template_type, payload.get("components"), "components", payload.get("mediaId"),
                       payload.get("headerType"))


def check_chat_message(report: Report, template_type: str, components: Any, path: str, media_id: Any,
                       header_type: Any) -> None:
    interactive.check_components(report, template_type, components, path, media_id if isinstance(media_id, str) else None)
    derived = interactive.header_type_of(components)
    if header_type is not None and derived is not None and header_type != derived:
        where = path.rsplit("components", 1)[0] + "headerType"
        report.add(where, "HEADER_TYPE_MISMATCH", f"headerType is '{header_type}' but the header is {derived}")


def photoapp_rules(payload: dict[str, Any], report: Report) -> None:
    pagemessages.check_message(report, payload.get("photoappComponents"), "photoappComponents", "photoapp")


def pageapp_rules(payload: dict[str, Any], report: Report) -> None:
    pagemessages.check_message(report, payload.get("pageappComponents"), "pageappComponents", "pageapp")


# --- native_catalog -------------------------------------------------------------------------
def catalog_rules(payload: dict[str, Any], report: Report) -> None:
    action = payload.get("catalogAction")
    if isinstance(action, dict) and action.get("type") == "get_collection_products" and not action.get("collectionId"):
        report.add("catalogAction.collectionId", "REQUIRED",
                   "catalogAction.collectionId is required for get_collection_products", "65f1c0a2b3c4d5e6f7a8b9c2")
