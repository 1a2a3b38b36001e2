"""Tool input types: every field optional and unset by default, so a create reports every problem at once
and a patch says exactly which fields it changes (an explicit null resets a field to its default).

`payload(input)` is the explicit conversion to the domain's payload: the fields that were sent, under
their API names; nested inputs the same way.
"""
from __future__ import annotations

from typing import Any

import strawberry
from strawberry.utils.str_converters import to_camel_case

from leadline.schema.scalars import JSON

UNSET: Any = strawberry.UNSET


def payload(value: Any) -> Any:
    """The sent fields of an input object (recursively), by their GraphQL names."""
    definition = getattr(type(value), "__strawberry_definition__", None)
    if definition is not None:
        out = {}
        for field in definition.fields:
            item = getattr(value, field.python_name)
            if item is not UNSET:
                out[field.graphql_name or to_camel_case(field.python_name)] = payload(item)
        return out
    if isinstance(value, list):
        return [payload(v) for v in value]
    return value


def sent(value: Any) -> dict[str, Any]:
    """`payload` without the fields sent as null (for a create, where null and absent are the same)."""
    return {k: v for k, v in payload(value).items() if v is not None}


@strawberry.input
class ToolAuthInput:
    type: str | None = UNSET
    token: str | None = UNSET
    username: str | None = UNSET
    password: str | None = UNSET
    api_key_in: str | None = UNSET
    api_key_name: str | None = UNSET
    api_key_value: str | None = UNSET


@strawberry.input
class ToolHeaderInput:
    key: str | None = UNSET
    value: str | None = UNSET
    enabled: bool | None = UNSET


@strawberry.input
class CatalogActionInput:
    type: str | None = UNSET
    catalog_id: str | None = UNSET
    collection_id: str | None = UNSET
    default_limit: int | None = UNSET


@strawberry.input
class StoreappActionInput:
    type: str | None = UNSET
    default_limit: int | None = UNSET


@strawberry.input
class ExtraMessageInput:
    """A chat extra message `{templateType, components, headerType?, mediaId?}`, or a photoapp/pageapp one
    `{components: {message}}`."""

    template_type: str | None = UNSET
    components: JSON | None = UNSET
    header_type: str | None = UNSET
    media_id: str | None = UNSET


@strawberry.input
class ToolInput:
    name: str | None = UNSET
    description: str | None = UNSET
    tool_type: str | None = UNSET
    is_active: bool | None = UNSET
    pixel_event: str | None = UNSET
    tags: list[str] | None = strawberry.field(default=UNSET, description="Tool tag ids.")
    # function
    server_url: str | None = UNSET
    request_method: str | None = UNSET
    auth: ToolAuthInput | None = UNSET
    headers: list[ToolHeaderInput] | None = UNSET
    body_mode: str | None = UNSET
    custom_payload: str | None = UNSET
    parameters: JSON | None = UNSET
    timeout: int | None = UNSET
    strict: bool | None = UNSET
    async_: bool | None = strawberry.field(default=UNSET, name="async")
    secret_token: str | None = UNSET
    # static_tool, media_attachments
    response: str | None = UNSET
    is_strict: bool | None = UNSET
    media_ids: list[str] | None = UNSET
    # message_templates
    template_type: str | None = UNSET
    components: JSON | None = UNSET
    header_type: str | None = UNSET
    media_id: str | None = UNSET
    # photoapp_templates, pageapp_templates
    photoapp_components: JSON | None = UNSET
    pageapp_components: JSON | None = UNSET
    # native_catalog, storeapp
    catalog_action: CatalogActionInput | None = UNSET
    storeapp_action: StoreappActionInput | None = UNSET
    extra_messages: list[ExtraMessageInput] | None = UNSET

