"""What a tool's input schema says beyond the GraphQL types: required fields, enums, bounds, patterns.

The GraphQL input types keep nearly every field optional (the spec has its own "missing X" codes, which
the domain code raises), so the types alone cannot say what is required or allowed. These are the rules
the domain code validates with, read from the constants it validates against (the models' status and
category tuples, the page-size bounds of each list, the assistants catalogue, the tool field
definitions of resolvers/tools/definitions.py); the few that are literals there are the spec's.

They are hints for the calling model: the server does not refuse a call for breaking them (the REST
validation does, with the same codes and envelopes as REST).

- `ARGUMENTS[operation][argument]`: JSON-schema keywords for an operation's top-level arguments (its
  path and query parameters, and the fields of its `input` body, which a tool takes flattened);
- `FIELDS[input type][field]`: keywords for a GraphQL input type's fields, wherever the type appears;
- `REQUIRED[operation or input type]`: the names the spec marks required.
"""
from __future__ import annotations

from typing import Any

from leadline.models.campaigns import CAMPAIGN_STATUSES
from leadline.models.channels import PLATFORMS
from leadline.models.insights import PLATFORMS as INSIGHT_PLATFORMS
from leadline.models.leads import VALUE_TYPES
from leadline.models.messaging import SCHEDULE_STATUSES
from leadline.models.templates import CATEGORIES, STATUSES as TEMPLATE_STATUSES
from leadline.resolvers.assistants import catalogue as assistants
from leadline.resolvers.assistants import queries as assistant_queries
from leadline.resolvers.billing import queries as billing
from leadline.resolvers.campaigns import report as campaign_report
from leadline.resolvers.chats import history as chat_history
from leadline.resolvers.chats import listing as chat_listing
from leadline.resolvers.contacts import queries as contact_queries
from leadline.resolvers.contacts.fields import FIELD_TYPES
from leadline.resolvers.messaging import schedules
from leadline.resolvers.messaging.content import TYPES as MESSAGE_TYPES
from leadline.resolvers.templates import validation as templates
from leadline.resolvers.tools import definitions as tools
from leadline.resolvers.tools import queries as tool_queries
from leadline.resolvers.tools import runs as tool_runs
from leadline.resolvers.tools.fields import JSON_TYPES, MISSING, FieldDef

# Spec literals (the domain code spells them inline).
FIELD_LISTING = ("default", "custom", "all")
DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "YYYY-MM-DD."}
HEX_ID = {"type": "string", "pattern": r"^[0-9a-fA-F]{24}$"}


def enum(values: tuple[str, ...] | list[str], description: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "string", "enum": list(values)}
    if description:
        out["description"] = description
    return out


def pages(maximum: int, default: int) -> dict[str, dict[str, Any]]:
    return {"page": {"type": "integer", "minimum": 1, "default": 1, "description": "1-based page."},
            "limit": {"type": "integer", "minimum": 1, "maximum": maximum, "default": default}}


def between(low: float, high: float, default: float | None = None, *, integer: bool = True) -> dict[str, Any]:
    cast = int if integer else float
    out: dict[str, Any] = {"type": "integer" if integer else "number", "minimum": cast(low), "maximum": cast(high)}
    if default is not None:
        out["default"] = cast(default)
    return out


LOCATOR = {
    "conversationId": {"description": "The conversation's _id; or give phone (+ channel, businessNumber)."},
    "channel": enum(PLATFORMS, "Defaults to the chat channel."),
    "businessNumber": {"description": "Needed when the organisation has no chat number or more than one."},
}


def _from_field_def(definition: FieldDef) -> dict[str, Any]:
    """A tool field definition (resolvers/tools/definitions.py) as JSON-schema keywords."""
    out: dict[str, Any] = {"description": definition.description}
    if definition.kind in JSON_TYPES:
        out["type"] = definition.kind
    if definition.enum:
        out["enum"] = list(definition.enum)
    for keyword, value in (("minimum", definition.minimum), ("maximum", definition.maximum),
                           ("maxLength", definition.max_length), ("minItems", definition.min_items),
                           ("maxItems", definition.max_items)):
        if value is not None:
            out[keyword] = value
    if definition.pattern:
        out["pattern"] = f"^(?:{definition.pattern})$"
    if definition.default is not MISSING and definition.default is not None:
        out["default"] = definition.default
    if definition.note:
        out["description"] += f" ({definition.note})"
    return out


def _tool_fields() -> dict[str, dict[str, Any]]:
    """Every tool field of every type (the first definition of a name wins; its type-specific `required`
    is said in the description)."""
    found: dict[str, dict[str, Any]] = {}
    for definition in tools.COMMON_FIELDS:
        found[definition.name] = _from_field_def(definition)
    for type_def in tools.TYPES.values():
        extra = type_def.extra_messages_field()
        for definition in (*type_def.fields, *((extra,) if extra else ())):
            if definition.name not in found:
                keywords = _from_field_def(definition)
                if definition.required:
                    keywords["description"] += f" Required for toolType {type_def.name}."
                found[definition.name] = keywords
    return found


def _nested(definitions: tuple[FieldDef, ...]) -> dict[str, dict[str, Any]]:
    return {d.name: _from_field_def(d) for d in definitions}


def _tool_subfields(name: str) -> tuple[FieldDef, ...]:
    """The nested fields of a tool field (of an array field: its items' fields)."""
    for type_def in tools.TYPES.values():
        for definition in type_def.fields:
            if definition.name == name:
                return definition.items.fields if definition.items is not None else definition.fields
    return ()


ASSISTANT_FIELDS: dict[str, dict[str, Any]] = {
    "name": {"maxLength": assistants.NAME_MAX},
    "provider": enum(assistants.PROVIDERS, "An AI provider of get_assistant_options."),
    "model": {"description": "A model of the provider (get_assistant_options: providerModels)."},
    "systemPrompt": {"maxLength": assistants.SYSTEM_PROMPT_MAX},
    "voiceProvider": enum(assistants.VOICE_PROVIDERS),
    "voicePrompt": {"maxLength": assistants.VOICE_PROMPT_MAX},
    "enableCommand": {"maxLength": assistants.COMMAND_MAX},
    "disableCommand": {"maxLength": assistants.COMMAND_MAX},
    "tools": {"maxItems": assistants.TOOLS_MAX},
    "phoneNumbersList": {"maxItems": assistants.PHONE_NUMBERS_MAX},
    "isNumbersExcluded": {"description": "true (default): phoneNumbersList is a deny list; false: an allow list."},
    **{name: between(bound.min, bound.max, bound.default, integer=bound.integer)
       for name, bound in assistants.LIMITS.items()},
}

FIELDS: dict[str, dict[str, dict[str, Any]]] = {
    # contacts
    "ContactFilterInput": {
        "filter": {"type": "object", "description": "Field → value: a string matches as a partial regular "
                   "expression, an array any member, a number or boolean exactly; customFields.<key> allowed."},
        **pages(contact_queries.FILTER_MAX, contact_queries.FILTER_DEFAULT)},
    "ContactInput": {"customFields": {"type": "object"}, "lead_segments": {"type": "object"}},
    "ContactCustomFieldInput": {"fieldType": {**enum(FIELD_TYPES), "default": "text"},
                                "options": {"description": "Non-empty for dropdown and multiselect."}},
    "ContactCustomFieldUpdateInput": {"fieldType": enum(FIELD_TYPES)},
    # templates
    "CreateTemplateInput": {"name": {"type": "string", "pattern": templates.NAME.pattern},
                            "category": enum(CATEGORIES)},
    "TemplateHeaderInput": {"format": enum(templates.HEADER_FORMATS), "text": {"maxLength": templates.HEADER_TEXT_MAX}},
    "TemplateBodyInput": {"text": {"maxLength": templates.BODY_TEXT_MAX}},
    "TemplateFooterInput": {"text": {"maxLength": templates.FOOTER_TEXT_MAX}},
    "TemplateButtonInput": {"type": enum(templates.BUTTON_TYPES)},
    "TemplateAuthInput": {"otp_type": enum(templates.OTP_TYPES),
                          "code_expiration_minutes": between(*templates.CODE_EXPIRATION)},
    # messaging
    "SendTemplateInput": {"language": {"default": "en"}, "timezone": {"default": "UTC"},
                          "scheduledAt": {"format": "date-time"}, "storeInAIContext": {"default": False}},
    "SendMessageInput": {"type": enum(MESSAGE_TYPES), "scheduledAt": {"format": "date-time"},
                         "content": {"type": "object", "description": "text: {body}; image, video: {link, caption?}; "
                                     "document: {link, filename, caption?}; audio: {link}."},
                         "timezone": {"default": "UTC"}, "storeInAIContext": {"default": False}},
    # campaigns
    "CampaignScheduleInput": {"sendAt": {"format": "date-time"}},
    "CreateCampaignInput": {"variables": {"type": "object", "description": "{header: {mediaUrl, text}, body: [...], "
                                          "buttons: [{index, params[], payload}]}; a value may be {field, default?}."}},
    # assistants
    "AssistantInput": ASSISTANT_FIELDS,
    "AssistantUpdateInput": ASSISTANT_FIELDS,
    "AssistantChannelInput": {"platform": enum(PLATFORMS)},
    # tools
    "ToolInput": _tool_fields(),
    "ToolAuthInput": _nested(_tool_subfields("auth")),
    "ToolHeaderInput": _nested(_tool_subfields("headers")),
    "CatalogActionInput": _nested(_tool_subfields("catalogAction")),
    "StoreappActionInput": _nested(_tool_subfields("storeappAction")),
    "ExtraMessageInput": _nested(tools.CHAT_EXTRA_ITEM.fields),
    # lead segmentation
    "LeadSegmentationInput": {"delay": between(0, 86400, integer=False)},
    "LeadSettingsInput": {"delay": between(0, 86400, integer=False)},
    "LeadFollowupInput": {"delay": {"type": "number", "minimum": 0}, "active": {"default": True}},
    "LeadInsightInput": {"key": {"type": "string", "pattern": r"^[a-zA-Z][a-zA-Z0-9_]*$"},
                         "valueType": {**enum(VALUE_TYPES), "default": "text"}},
    "LeadInsightUpdateInput": {"valueType": enum(VALUE_TYPES)},
    # team inbox
    "AssignInput": LOCATOR,
    "ConversationLocatorInput": LOCATOR,
    "ConversationStatusInput": {**LOCATOR, "status": {"description": "A key of list_inbox_statuses."}},
}

ARGUMENTS: dict[str, dict[str, dict[str, Any]]] = {
    "billingSubscriptions": {"status": enum(billing.SUBSCRIPTION_STATUSES),
                             **pages(billing.MAX_PAGE, billing.DEFAULT_PAGE)},
    "billingPayments": {"status": enum(billing.PAYMENT_STATUSES), "paymentFor": enum(billing.PAYMENT_PURPOSES),
                        **pages(billing.MAX_PAGE, billing.DEFAULT_PAGE)},
    "channelStatus": {"channel": enum(PLATFORMS, "Omit for every channel.")},
    "contacts": pages(contact_queries.LIST_MAX, contact_queries.LIST_DEFAULT),
    "contactFields": {"type": {**enum(FIELD_LISTING), "default": "all",
                               "description": "custom: the custom field definitions (with options)."}},
    "updateContactCustomField": {"fieldId": HEX_ID},
    "deleteContactCustomField": {"fieldId": HEX_ID},
    "renameContactTag": {"tagId": HEX_ID},
    "deleteContactTag": {"tagId": HEX_ID},
    "templates": {"status": enum(TEMPLATE_STATUSES, "Case-insensitive."),
                  "category": enum(CATEGORIES, "Case-insensitive.")},
    "template": {"id": {"description": "The 24-hex _id or the all-digit provider templateId."}},
    "chatMessageStatus": {"retry": {"default": False}},
    "scheduledMessages": {"status": enum(SCHEDULE_STATUSES), **pages(schedules.MAX_PAGE, schedules.DEFAULT_PAGE)},
    "chatHistory": {"limit": between(1, chat_history.MAX_LIMIT, chat_history.DEFAULT_LIMIT),
                    "before": {"format": "date-time", "description": "Cursor: pagination.nextCursor of a page."},
                    "excludeInternal": {"default": False}},
    "chatConversations": pages(chat_listing.MAX_LIMIT, chat_listing.DEFAULT_LIMIT),
    "campaigns": {"status": enum(CAMPAIGN_STATUSES),
                  **pages(campaign_report.LIST_MAX, campaign_report.LIST_DEFAULT)},
    "assistants": {"platform": enum(PLATFORMS), **pages(assistant_queries.LIST_MAX, assistant_queries.LIST_DEFAULT)},
    "toolSchema": {"type": enum(tools.TOOL_TYPES, "One type's fields and example; omit for the catalogue.")},
    "tools": {"toolType": enum(tools.TOOL_TYPES), **pages(tool_queries.LIST_MAX, tool_queries.LIST_DEFAULT)},
    "toolRuns": pages(tool_runs.LIST_MAX, tool_runs.LIST_DEFAULT),
    "deleteLeadCategory": {"reassignTo": {"description": "Another category's name to move its contacts to first "
                                                         "(empty: clear their lead_category)."}},
    "dailySummary": {"from": DATE, "to": DATE, "platform": {**enum((*INSIGHT_PLATFORMS, "all")), "default": "all"}},
    "pipelineSnapshots": {"from": DATE, "to": DATE, "platform": {**enum((*INSIGHT_PLATFORMS, "all")),
                                                                 "default": "all"}},
    "assignmentHistory": LOCATOR,
}

REQUIRED: dict[str, tuple[str, ...]] = {
    # operations (top-level arguments)
    "sendTemplateMessage": ("to", "brandNumber"),
    "sendChatMessage": ("to", "brandNumber", "type", "content"),
    "chatMessageStatus": ("messageId", "brandNumber"),
    "contactByPhone": ("phone",),
    "upsertContact": ("phone",),
    "createContactCustomField": ("fieldName",),
    "createContactTag": ("name",),
    "renameContactTag": ("name",),
    "createTemplate": ("brandNumber", "name", "language", "category"),
    "campaignPreview": ("brandNumber",),
    "createCampaign": ("brandNumber", "campaignName", "audience"),
    "createAssistant": ("name", "provider", "model"),
    "toggleAssistant": ("isActive",),
    "restoreAssistant": ("versionNumber",),
    "createTool": tuple(d.name for d in tools.COMMON_FIELDS if d.required),
    "restoreTool": ("versionNumber",),
    "createLeadCategory": ("name", "description"),
    "setLeadCategoryFollowups": ("followups",),
    "setLeadDefaultFollowups": ("followups",),
    "createLeadInsight": ("key", "name", "description"),
    "createTeam": ("name",),
    "setConversationStatus": ("status",),
    # input types (wherever they appear)
    "LeadCategoryInput": ("name", "description"),
    "LeadFollowupInput": ("delay", "prompt"),
    "LeadInsightInput": ("key", "name", "description"),
    "CampaignContactInput": ("phone",),
    "CampaignScheduleInput": ("sendAt",),
    "TemplateHeaderInput": ("format",),
    "TemplateButtonInput": ("type",),
    "ToolHeaderInput": ("key",),
    "CatalogActionInput": ("type", "catalogId"),
    "StoreappActionInput": ("type",),
    "SupportedAppInput": ("package_name", "signature_hash"),
}

# Free text appended to a tool's description: the spec's "one of" rules, which a schema cannot say at the
# top level (hosts refuse anyOf there).
ONE_OF: dict[str, str] = {
    "sendTemplateMessage": "Give templateId or templateName.",
    "createCampaign": "Give templateId (preferred) or templateName with language.",
    "chatHistory": "Give phone or contactId.",
    "assignConversation": "Locate the conversation by conversationId, or phone (+ channel, businessNumber); "
                          "give agentId and/or teamId.",
    "unassignConversation": "Locate the conversation by conversationId, or phone (+ channel, businessNumber).",
    "assignmentHistory": "Locate the conversation by conversationId, or phone (+ channel, businessNumber).",
    "setConversationStatus": "Locate the conversation by conversationId, or phone (+ channel, businessNumber).",
}
