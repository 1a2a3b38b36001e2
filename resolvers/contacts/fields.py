"""The contact field schema: the 19 built-in fields and the organisation's custom field definitions."""
from __future__ import annotations

import re
from dataclasses import dataclass

from pymongo.errors import DuplicateKeyError

from leadline.models.base import utcnow
from leadline.models.contacts import CustomField
from leadline.resolvers.billing.limits import within_limit
from leadline.resolvers.context import RequestContext
from leadline.resolvers.contacts.ids import object_id
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.billing.usage import usage_counter


@dataclass(frozen=True)
class BuiltinField:
    key: str
    label: str
    fieldType: str


# The spec's 19 built-in keys, in the spec's order.
BUILTIN_FIELDS: tuple[BuiltinField, ...] = (
    BuiltinField("phone", "Phone", "phone"),
    BuiltinField("countryCode", "Country Code", "text"),
    BuiltinField("contactName", "Contact Name", "text"),
    BuiltinField("email", "Email", "text"),
    BuiltinField("platform", "Platform", "text"),
    BuiltinField("businessName", "Business Name", "text"),
    BuiltinField("addressLine1", "Address Line 1", "text"),
    BuiltinField("addressLine2", "Address Line 2", "text"),
    BuiltinField("city", "City", "text"),
    BuiltinField("state", "State", "text"),
    BuiltinField("postalCode", "Postal Code", "text"),
    BuiltinField("country", "Country", "text"),
    BuiltinField("source", "Source", "text"),
    BuiltinField("notes", "Notes", "text"),
    BuiltinField("optedOut", "Opted Out", "boolean"),
    BuiltinField("lead_category", "Lead Category", "text"),
    BuiltinField("chatapp_undeliverable", "Chatapp Undeliverable", "boolean"),
    BuiltinField("createdAt", "Created At", "date"),
    BuiltinField("updatedAt", "Updated At", "date"),
)

FIELD_TYPES = ("text", "number", "date", "boolean", "dropdown", "multiselect", "url", "phone")
CHOICE_TYPES = ("dropdown", "multiselect")
FIELD_KEY = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
MAX_NAME, MAX_OPTIONS, MAX_OPTION = 100, 200, 100


@dataclass(frozen=True)
class FieldListing:
    builtins: list[BuiltinField]
    custom: list[CustomField]


def derive_key(name: str) -> str:
    """'Plan Tier (2024)' -> 'plan_tier_2024'; leading digits and underscores are dropped."""
    key = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return re.sub(r"^[0-9_]+", "", key)[:64].rstrip("_")


async def list_fields(ctx: RequestContext, type: str | None) -> FieldListing:
    kind = (type or "all").strip().lower()
    if kind not in ("default", "custom", "all"):
        raise ApiError("INVALID_FIELD_TYPE_FILTER", "type must be one of: default, custom, all.")
    builtins = list(BUILTIN_FIELDS) if kind != "custom" else []
    custom = await list_custom_fields(ctx) if kind != "default" else []
    return FieldListing(builtins, custom)


async def list_custom_fields(ctx: RequestContext) -> list[CustomField]:
    return await CustomField.find_in(ctx).sort("created_at").to_list()


async def definitions_by_key(ctx: RequestContext) -> dict[str, CustomField]:
    return {f.fieldKey: f for f in await list_custom_fields(ctx)}


def _field_type(value: str | None, default: str) -> str:
    if value is None:
        return default
    field_type = value.strip().lower()
    if field_type not in FIELD_TYPES:
        raise ApiError("INVALID_FIELD_TYPE", f"fieldType must be one of: {', '.join(FIELD_TYPES)}.")
    return field_type


def _field_name(value: str | None) -> str:
    name = (value or "").strip()
    if not name:
        raise ApiError("MISSING_FIELD_NAME", "fieldName is required.")
    if len(name) > MAX_NAME:
        raise validation_error([detail("fieldName", "TOO_LONG", f"fieldName is at most {MAX_NAME} characters")])
    return name


def _options(field_type: str, options: list[str] | None, current: list[str]) -> list[str]:
    """Choice types need a non-empty list (the sent one, else the current one); others take none."""
    if field_type not in CHOICE_TYPES:
        if options:
            raise validation_error([detail("options", "NOT_ALLOWED", "options apply only to dropdown and multiselect")])
        return []
    chosen = current if options is None else options
    cleaned = list(dict.fromkeys(o.strip() for o in chosen if o and o.strip()))
    if not cleaned:
        raise ApiError("MISSING_DROPDOWN_OPTIONS", f"options must be a non-empty list for a {field_type} field.")
    if len(cleaned) > MAX_OPTIONS or any(len(o) > MAX_OPTION for o in cleaned):
        raise validation_error([detail("options", "TOO_LONG",
                                       f"at most {MAX_OPTIONS} options of at most {MAX_OPTION} characters")])
    return cleaned


async def create_custom_field(ctx: RequestContext, field_name: str | None, field_key: str | None,
                              field_type: str | None, options: list[str] | None) -> CustomField:
    name = _field_name(field_name)
    kind = _field_type(field_type, "text")
    if field_key is not None:
        key = field_key.strip()
        if not FIELD_KEY.match(key):
            raise ApiError("INVALID_FIELD_KEY", "fieldKey must start with a lowercase letter and hold only "
                                                "lowercase letters, digits and underscores (at most 64).")
    else:
        key = derive_key(name)
        if not FIELD_KEY.match(key):
            raise ApiError("INVALID_FIELD_KEY", f"No valid fieldKey can be derived from '{name}'; send fieldKey.")
    chosen = _options(kind, options, [])
    if await CustomField.find_one_in(ctx, {"fieldKey": key}):
        raise _exists(key)
    async with within_limit(ctx, "max_custom_attributes"):
        field = CustomField.new(ctx, fieldName=name, fieldKey=key, fieldType=kind, options=chosen)
        try:
            await field.insert()
        except DuplicateKeyError:
            raise _exists(key) from None
    return field


def _exists(key: str) -> ApiError:
    return ApiError("CUSTOM_FIELD_ALREADY_EXISTS", f"A custom field with fieldKey '{key}' already exists.")


async def _get(ctx: RequestContext, field_id: str) -> CustomField:
    field = await CustomField.get_in(ctx, object_id(field_id, "INVALID_FIELD_ID", "fieldId"))
    if field is None:
        raise ApiError("CUSTOM_FIELD_NOT_FOUND", "No custom field with this id.")
    return field


async def update_custom_field(ctx: RequestContext, field_id: str, field_name: str | None, field_key: str | None,
                              field_type: str | None, options: list[str] | None) -> CustomField:
    """Only name, type and options change; the key is immutable and stored values are not rewritten."""
    field = await _get(ctx, field_id)
    if field_key is not None and field_key != field.fieldKey:
        raise validation_error([detail("fieldKey", "IMMUTABLE", "fieldKey cannot be changed once created")])
    if field_name is not None:
        field.fieldName = _field_name(field_name)
    kind = _field_type(field_type, field.fieldType)
    field.options = _options(kind, options, field.options if kind in CHOICE_TYPES else [])
    field.fieldType = kind
    field.updated_at = utcnow()
    await field.save()
    return field


async def delete_custom_field(ctx: RequestContext, field_id: str) -> CustomField:
    """Values already stored on contacts are kept (spec); they stay filterable by key."""
    field = await _get(ctx, field_id)
    await field.delete()
    return field


@usage_counter("max_custom_attributes")
async def count_custom_fields(org_id, timezone: str = "UTC") -> int:
    return await CustomField.count_in(org_id)
