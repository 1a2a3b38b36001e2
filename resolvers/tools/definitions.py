"""The eight tool types: their fields, extra rules and a complete example each.

`GET /v2.0/tools/schema` publishes exactly these definitions, and resolvers/tools/validation.py
validates payloads with them; every `example` is a valid create payload (tested).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from leadline.resolvers.tools import interactive, rules
from leadline.resolvers.tools.fields import FieldDef, Report

HEX_ID = r"[0-9a-fA-F]{24}"
NAME_PATTERN = r"[a-z][a-z0-9_]*"
PIXEL_EVENTS = ("Purchase", "LeadSubmitted", "QualifiedLead")
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
AUTH_TYPES = ("none", "bearer", "api_key", "basic")
BODY_MODES = ("auto", "custom", "none")
CATALOG_ACTIONS = ("list_collections", "list_products", "get_product", "get_collection_products")
STOREAPP_ACTIONS = ("search_products", "get_product", "get_variants", "list_collections", "get_collection_products",
                    "track_order", "get_order", "search_customer", "list_customer_orders", "create_draft_order",
                    "send_invoice")
EXTRA_MESSAGES_MAX = 2
TOOL_TYPES = ("function", "static_tool", "media_attachments", "message_templates", "photoapp_templates",
              "pageapp_templates", "native_catalog", "storeapp")

COMMON_FIELDS: tuple[FieldDef, ...] = (
    FieldDef("name", "string", "Unique within the organisation; what the AI calls the tool by.", required=True,
             max_length=64, pattern=NAME_PATTERN, pattern_hint="must start with a lowercase letter and hold only "
             "lowercase letters, digits and '_'", example="check_order_status"),
    FieldDef("description", "string", "When the AI should call the tool.", required=True, max_length=1024,
             example="Looks up the status of an order when the customer asks where it is."),
    FieldDef("toolType", "string", "The tool's type (immutable).", required=True, enum=TOOL_TYPES, example="function"),
    FieldDef("isActive", "boolean", "An inactive tool is never called.", default=True),
    FieldDef("pixelEvent", "string", "Conversion event reported when the tool runs.", enum=PIXEL_EVENTS,
             default=None),
    FieldDef("tags", "array", "Ids of the organisation's tool tags.", default=[],
             items=FieldDef("tags[]", "string", "A tool tag id.", pattern=HEX_ID, pattern_hint="must be a 24-character "
                            "hexadecimal id", example="65f1c0a2b3c4d5e6f7a8b9c3")),
)
COMMON_NAMES = frozenset(f.name for f in COMMON_FIELDS) | {"extraMessages"}

_HEADER_ITEM = FieldDef("headers[]", "object", "A header sent with every call.", fields=(
    FieldDef("key", "string", "Header name (case-insensitive, unique).", required=True, max_length=256,
             pattern=r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", pattern_hint="must be a valid header name", example="Accept"),
    FieldDef("value", "string", "Header value.", default="", max_length=4096, example="application/json"),
    FieldDef("enabled", "boolean", "Only enabled headers are sent.", default=True),
))

FUNCTION_FIELDS: tuple[FieldDef, ...] = (
    FieldDef("serverUrl", "string", "The http(s) URL called; {{param}} placeholders are filled from the arguments.",
             required=True, max_length=2048, example="https://api.example.com/orders/{{order_id}}"),
    FieldDef("requestMethod", "string", "HTTP method.", enum=METHODS, default="POST"),
    FieldDef("auth", "object", "How the call authenticates.", default={"type": "none"}, fields=(
        FieldDef("type", "string", "none, bearer (token), basic (username, password) or api_key (apiKeyIn, "
                 "apiKeyName, apiKeyValue).", enum=AUTH_TYPES, default="none"),
        FieldDef("token", "string", "Bearer token.", max_length=4096, secret=True, note="required when type is bearer"),
        FieldDef("username", "string", "Basic auth user.", max_length=256, note="required when type is basic"),
        FieldDef("password", "string", "Basic auth password.", max_length=4096, secret=True,
                 note="required when type is basic"),
        FieldDef("apiKeyIn", "string", "Where the key goes.", enum=("header", "query"),
                 note="required when type is api_key"),
        FieldDef("apiKeyName", "string", "Header or query parameter name.", max_length=256,
                 note="required when type is api_key", example="X-API-Key"),
        FieldDef("apiKeyValue", "string", "The key.", max_length=4096, secret=True, note="required when type is api_key"),
    )),
    FieldDef("headers", "array", "Extra headers; names must be unique (case-insensitive).", default=[], max_items=20,
             items=_HEADER_ITEM),
    FieldDef("bodyMode", "string", "auto: arguments not used in the URL become a JSON body (POST, PUT, PATCH) or "
             "query parameters (GET, DELETE); custom: customPayload; none: no body.", enum=BODY_MODES, default="auto"),
    FieldDef("customPayload", "string", "JSON text with {{variable}} placeholders (bodyMode custom).", default=None,
             max_length=16384, example='{"orderId": "{{order_id}}"}', note="required when bodyMode is custom"),
    FieldDef("parameters", "object", "JSON schema of the arguments: {type: object, properties, required}; "
             "property names are lowercase letters, digits and '_'.",
             default={"type": "object", "properties": {}, "required": []}, example=rules.EXAMPLE_PARAMETERS),
    FieldDef("timeout", "integer", "Seconds before the call is abandoned.", minimum=1, maximum=300, default=30),
    FieldDef("strict", "boolean", "Ask the model to follow the parameters schema exactly.", default=False),
    FieldDef("async", "boolean", "Fire and forget: the AI does not wait for the answer.", default=False),
    FieldDef("secretToken", "string", "Shared secret: each call is signed with it (X-Leadline-Signature: "
             "sha256=HMAC of the body).", default=None, max_length=4096, secret=True),
)

STATIC_FIELDS: tuple[FieldDef, ...] = (
    FieldDef("response", "string", "The answer; placeholders {{current_date}}, {{current_time}}, "
             "{{current_datetime}}, {{phone_number}}.", required=True, max_length=4096,
             example="We are open 9:00-18:00, Monday to Saturday."),
    FieldDef("isStrict", "boolean", "Send the response verbatim instead of letting the AI phrase it.", default=False),
)

MEDIA_FIELDS: tuple[FieldDef, ...] = (
    FieldDef("mediaIds", "array", "1 to 5 media library file ids, sent in order.", required=True, min_items=1,
             max_items=5, items=FieldDef("mediaIds[]", "string", "A media library file id.", pattern=HEX_ID,
                                         pattern_hint="must be a 24-character hexadecimal id",
                                         example="65f1c0a2b3c4d5e6f7a8b9c0"),
             example=["65f1c0a2b3c4d5e6f7a8b9c0"]),
    FieldDef("response", "string", "Caption sent with the first file.", default=None, max_length=1024),
    FieldDef("isStrict", "boolean", "Send the caption verbatim.", default=False),
)


def _chat_fields(prefix: str = "") -> tuple[FieldDef, ...]:
    return (
        FieldDef(f"{prefix}templateType", "string", "The interactive message kind.", required=True,
                 enum=interactive.TEMPLATE_TYPES, example="button"),
        FieldDef(f"{prefix}components", "object", "The provider's interactive payload {type, header?, body: {text}, "
                 "footer?, action}, sent as given; type equals templateType.", required=True),
        FieldDef(f"{prefix}headerType", "string", "text or media; derived from components.header when omitted.",
                 enum=("text", "media"), default=None),
        FieldDef(f"{prefix}mediaId", "string", "Media library file id for a media header.", default=None,
                 pattern=HEX_ID, pattern_hint="must be a 24-character hexadecimal id"),
    )


MESSAGE_TEMPLATE_FIELDS = _chat_fields()
PHOTOAPP_FIELDS = (FieldDef("photoappComponents", "object", "{message: {text?, quick_replies?, attachment?}}.",
                            required=True),)
PAGEAPP_FIELDS = (FieldDef("pageappComponents", "object", "{message: {text?, quick_replies?, attachment?}}; a "
                           "media attachment needs payload.url.", required=True),)

CATALOG_FIELDS = (FieldDef("catalogAction", "object", "What the tool reads from a native catalog.", required=True,
                           fields=(
    FieldDef("type", "string", "The action.", required=True, enum=CATALOG_ACTIONS),
    FieldDef("catalogId", "string", "The catalog's id.", required=True, pattern=HEX_ID,
             pattern_hint="must be a 24-character hexadecimal id", example="65f1c0a2b3c4d5e6f7a8b9c1"),
    FieldDef("collectionId", "string", "The collection (get_collection_products).", max_length=128, default=None,
             note="required when type is get_collection_products"),
    FieldDef("defaultLimit", "integer", "Items returned when the AI gives no limit.", minimum=1, maximum=20, default=5),
)),)

STOREAPP_FIELDS = (FieldDef("storeappAction", "object", "What the tool does in the connected store (credentials "
                            "are never passed).", required=True, fields=(
    FieldDef("type", "string", "The action.", required=True, enum=STOREAPP_ACTIONS),
    FieldDef("defaultLimit", "integer", "Items returned when the AI gives no limit.", minimum=1, maximum=20,
             default=10),
)),)

CHAT_EXTRA_ITEM = FieldDef("extraMessages[]", "object", "A message sent after message 1.",
                           fields=_chat_fields())
PAGE_EXTRA_ITEM = FieldDef("extraMessages[]", "object", "A message sent after message 1: {components: {message}}.",
                           fields=(FieldDef("components", "object", "{message: {...}}, as message 1.", required=True),))


@dataclass(frozen=True)
class ToolTypeDef:
    name: str
    title: str
    summary: str
    fields: tuple[FieldDef, ...]
    rules: tuple[Callable[[dict[str, Any], Report], None], ...]
    example: dict[str, Any]
    # "chat", "photoapp", "pageapp": the type sends up to two extra messages of that kind.
    extra: str | None = None

    @property
    def field_names(self) -> frozenset[str]:
        return frozenset(f.name for f in self.fields)

    def extra_messages_field(self) -> FieldDef | None:
        if self.extra is None:
            return None
        item = CHAT_EXTRA_ITEM if self.extra == "chat" else PAGE_EXTRA_ITEM
        return FieldDef("extraMessages", "array", f"Up to {EXTRA_MESSAGES_MAX} more messages sent in order after "
                        "message 1 (same rules; sending stops at the first that fails). [] removes them on update.",
                        default=[], max_items=EXTRA_MESSAGES_MAX, items=item)

    def describe(self) -> dict[str, Any]:
        fields = [f.describe() for f in self.fields]
        if (extra := self.extra_messages_field()) is not None:
            fields.append(extra.describe())
        return {"toolType": self.name, "title": self.title, "summary": self.summary, "fields": fields,
                "example": self.example}


def _example(name: str, description: str, tool_type: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "description": description, "toolType": tool_type, **fields}


TYPES: dict[str, ToolTypeDef] = {t.name: t for t in (
    ToolTypeDef("function", "HTTP function", "Calls your HTTP endpoint with the arguments the AI extracts.",
                FUNCTION_FIELDS, (rules.function_rules,), _example(
                    "check_order_status", "Looks up an order's status when the customer asks where it is.", "function",
                    serverUrl="https://api.example.com/orders/{{order_id}}", requestMethod="GET",
                    auth={"type": "bearer", "token": "replace-with-your-api-token"},
                    headers=[{"key": "Accept", "value": "application/json", "enabled": True}], bodyMode="auto",
                    parameters=rules.EXAMPLE_PARAMETERS, timeout=30)),
    ToolTypeDef("static_tool", "Static answer", "Answers with fixed text (placeholders filled in at run time).",
                STATIC_FIELDS, (rules.static_rules,), _example(
                    "opening_hours", "Tells the customer the opening hours.", "static_tool",
                    response="We are open 9:00-18:00, Monday to Saturday. Today is {{current_date}}.", isStrict=False)),
    ToolTypeDef("media_attachments", "Media files", "Sends 1 to 5 files from the media library.",
                MEDIA_FIELDS, (rules.media_rules,), _example(
                    "send_price_list", "Sends the price list when the customer asks for prices.", "media_attachments",
                    mediaIds=["65f1c0a2b3c4d5e6f7a8b9c0"], response="Here is our price list.", isStrict=True)),
    ToolTypeDef("message_templates", "Chat interactive message", "Sends an interactive chat message (buttons, list, "
                "link, products, flow, carousel), then up to two more.", MESSAGE_TEMPLATE_FIELDS,
                (rules.message_template_rules,), _example(
                    "offer_demo_days", "Offers demo days when the customer wants a demo.", "message_templates",
                    templateType="button",
                    components={"type": "button", "header": {"type": "text", "text": "Book a demo"},
                                "body": {"text": "Which day suits you best?"}, "footer": {"text": "Tap a button"},
                                "action": {"buttons": [{"type": "reply", "reply": {"id": "mon", "title": "Monday"}},
                                                       {"type": "reply", "reply": {"id": "tue", "title": "Tuesday"}}]}},
                    extraMessages=[{"templateType": "cta_url", "components": {
                        "type": "cta_url", "body": {"text": "Or pick a time online."},
                        "action": {"name": "cta_url", "parameters": {"display_text": "Open calendar",
                                                                      "url": "https://example.com/book"}}}}]),
                extra="chat"),
    ToolTypeDef("photoapp_templates", "Photoapp message", "Sends a photoapp message (text, quick replies, templates), "
                "then up to two more.", PHOTOAPP_FIELDS, (rules.photoapp_rules,), _example(
                    "ask_interest", "Asks what the customer is looking for.", "photoapp_templates",
                    photoappComponents={"message": {"text": "What are you looking for?", "quick_replies": [
                        {"content_type": "text", "title": "Shoes", "payload": "SHOES"},
                        {"content_type": "text", "title": "Bags", "payload": "BAGS"}]}}), extra="photoapp"),
    ToolTypeDef("pageapp_templates", "Pageapp message", "Sends a pageapp message (text, quick replies, templates, "
                "media), then up to two more.", PAGEAPP_FIELDS, (rules.pageapp_rules,), _example(
                    "help_menu", "Shows the help menu when the customer is unsure.", "pageapp_templates",
                    pageappComponents={"message": {"attachment": {"type": "template", "payload": {
                        "template_type": "button", "text": "How can we help?", "buttons": [
                            {"type": "web_url", "url": "https://example.com/faq", "title": "FAQ"},
                            {"type": "postback", "title": "Talk to us", "payload": "HUMAN"}]}}}}), extra="pageapp"),
    ToolTypeDef("native_catalog", "Native catalog", "Reads products and collections from a native catalog.",
                CATALOG_FIELDS, (rules.catalog_rules,), _example(
                    "browse_products", "Lists products when the customer wants to browse.", "native_catalog",
                    catalogAction={"type": "list_products", "catalogId": "65f1c0a2b3c4d5e6f7a8b9c1", "defaultLimit": 5})),
    ToolTypeDef("storeapp", "Connected store", "Acts in the connected store (needs a connected store at run time).",
                STOREAPP_FIELDS, (), _example(
                    "track_my_order", "Tracks an order in the store when the customer asks about delivery.", "storeapp",
                    storeappAction={"type": "track_order", "defaultLimit": 10})),
)}

COMMON_DESCRIPTION = [f.describe() for f in COMMON_FIELDS]


def type_schema(tool_type: str) -> dict[str, Any]:
    return {**TYPES[tool_type].describe(), "commonFields": COMMON_DESCRIPTION}


def catalogue() -> dict[str, Any]:
    return {"toolTypes": list(TOOL_TYPES), "commonFields": COMMON_DESCRIPTION,
            "types": {name: {k: v for k, v in t.describe().items() if k != "toolType"} for name, t in TYPES.items()}}
