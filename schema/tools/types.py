"""Tool output types. A tool is one of eight object types (the union `Tool`), each with the common fields,
then its own, then `extraMessages`, `createdAt`, `updatedAt`; secrets always show as the mask."""
from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Union

import strawberry

from leadline.models.tools import Tool, ToolRun, ToolTag, ToolVersion
from leadline.resolvers.tools.payload import masked
from leadline.resolvers.tools.runs import result_of
from leadline.schema.common import Pagination
from leadline.schema.scalars import JSON


def _head(t: Tool) -> dict[str, Any]:
    return {"id": str(t.id), "name": t.name, "description": t.description, "tool_type": t.tool_type,
            "is_active": t.is_active, "tags": [str(x) for x in t.tags], "pixel_event": t.pixel_event}


def _tail(t: Tool) -> dict[str, Any]:
    return {"extra_messages": list(t.extra_messages), "created_at": t.created_at, "updated_at": t.updated_at}


@strawberry.type
class ToolHead:
    id: str = strawberry.field(name="_id")
    name: str
    description: str
    tool_type: str
    is_active: bool
    tags: list[str] = strawberry.field(description="Ids of the tool's tags.")
    pixel_event: str | None


@strawberry.type
class ToolHeader:
    key: str
    value: str
    enabled: bool


@strawberry.type
class FunctionTool(ToolHead):
    server_url: str
    request_method: str
    auth: JSON = strawberry.field(description="{type, ...}: token, password and apiKeyValue show as the mask.")
    headers: list[ToolHeader]
    body_mode: str
    custom_payload: str | None
    parameters: JSON
    timeout: int
    strict: bool
    async_: bool = strawberry.field(name="async")
    secret_token: str | None
    extra_messages: JSON
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, t: Tool) -> "FunctionTool":
        c = masked(t.config)
        return cls(**_head(t), server_url=c["serverUrl"], request_method=c["requestMethod"], auth=c["auth"],
                   headers=[ToolHeader(key=h["key"], value=h.get("value", ""), enabled=h.get("enabled", True))
                            for h in c.get("headers") or []],
                   body_mode=c["bodyMode"], custom_payload=c.get("customPayload"), parameters=c["parameters"],
                   timeout=c["timeout"], strict=c["strict"], async_=c["async"], secret_token=c.get("secretToken"),
                   **_tail(t))


@strawberry.type
class StaticTool(ToolHead):
    response: str | None
    is_strict: bool
    extra_messages: JSON
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, t: Tool) -> "StaticTool":
        return cls(**_head(t), response=t.config.get("response"), is_strict=t.config.get("isStrict", False), **_tail(t))


@strawberry.type
class MediaAttachmentsTool(ToolHead):
    media_ids: list[str]
    response: str | None
    is_strict: bool
    extra_messages: JSON
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, t: Tool) -> "MediaAttachmentsTool":
        c = t.config
        return cls(**_head(t), media_ids=list(c.get("mediaIds") or []), response=c.get("response"),
                   is_strict=c.get("isStrict", False), **_tail(t))


@strawberry.type
class MessageTemplatesTool(ToolHead):
    template_type: str
    components: JSON
    header_type: str | None
    media_id: str | None
    extra_messages: JSON
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, t: Tool) -> "MessageTemplatesTool":
        c = t.config
        return cls(**_head(t), template_type=c["templateType"], components=c["components"],
                   header_type=c.get("headerType"), media_id=c.get("mediaId"), **_tail(t))


@strawberry.type
class PhotoappTemplatesTool(ToolHead):
    photoapp_components: JSON
    extra_messages: JSON
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, t: Tool) -> "PhotoappTemplatesTool":
        return cls(**_head(t), photoapp_components=t.config["photoappComponents"], **_tail(t))


@strawberry.type
class PageappTemplatesTool(ToolHead):
    pageapp_components: JSON
    extra_messages: JSON
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, t: Tool) -> "PageappTemplatesTool":
        return cls(**_head(t), pageapp_components=t.config["pageappComponents"], **_tail(t))


@strawberry.type
class CatalogAction:
    type: str
    catalog_id: str
    collection_id: str | None
    default_limit: int


@strawberry.type
class NativeCatalogTool(ToolHead):
    catalog_action: CatalogAction
    extra_messages: JSON
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, t: Tool) -> "NativeCatalogTool":
        a = t.config["catalogAction"]
        action = CatalogAction(type=a["type"], catalog_id=a["catalogId"], collection_id=a.get("collectionId"),
                               default_limit=a["defaultLimit"])
        return cls(**_head(t), catalog_action=action, **_tail(t))


@strawberry.type
class StoreappAction:
    type: str
    default_limit: int


@strawberry.type
class StoreappTool(ToolHead):
    storeapp_action: StoreappAction
    extra_messages: JSON
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, t: Tool) -> "StoreappTool":
        a = t.config["storeappAction"]
        return cls(**_head(t), storeapp_action=StoreappAction(type=a["type"], default_limit=a["defaultLimit"]),
                   **_tail(t))


_BY_TYPE = {"function": FunctionTool, "static_tool": StaticTool, "media_attachments": MediaAttachmentsTool,
            "message_templates": MessageTemplatesTool, "photoapp_templates": PhotoappTemplatesTool,
            "pageapp_templates": PageappTemplatesTool, "native_catalog": NativeCatalogTool, "storeapp": StoreappTool}

ToolType = Annotated[Union[FunctionTool, StaticTool, MediaAttachmentsTool, MessageTemplatesTool, PhotoappTemplatesTool,
                           PageappTemplatesTool, NativeCatalogTool, StoreappTool], strawberry.union("Tool")]


def tool_from_domain(t: Tool) -> Any:
    return _BY_TYPE[t.tool_type].from_domain(t)


@strawberry.type
class ToolPage:
    """One page of tools: `data` and `pagination` (REST spreads both into the envelope)."""

    data: list[ToolType]
    pagination: Pagination


@strawberry.type
class ToolDeleted:
    tool_id: str
    name: str
    deleted: bool

    @classmethod
    def from_domain(cls, t: Tool) -> "ToolDeleted":
        return cls(tool_id=str(t.id), name=t.name, deleted=True)


@strawberry.type
class ChangedBy:
    name: str
    email: str | None
    source: str

    @classmethod
    def from_domain(cls, value: dict[str, Any]) -> "ChangedBy":
        return cls(name=value.get("name") or "API key", email=value.get("email"), source=value.get("source") or "api")


@strawberry.type(name="ToolVersion")
class ToolVersionType:
    version_number: int
    change_type: str
    change_description: str
    changed_at: datetime
    changed_by: ChangedBy
    snapshot: JSON = strawberry.field(description="The tool after the change; secrets show as the mask.")

    @classmethod
    def from_domain(cls, v: ToolVersion) -> "ToolVersionType":
        return cls(version_number=v.version_number, change_type=v.change_type, change_description=v.change_description,
                   changed_at=v.changed_at, changed_by=ChangedBy.from_domain(v.changed_by), snapshot=masked(v.snapshot))


@strawberry.type(name="ToolRun")
class ToolRunType:
    trace_id: str
    tool_name: str
    tool_type: str
    status: str
    error_message: str | None
    duration_ms: int
    http_status: int | None
    request_url: str | None
    request_method: str | None
    args: JSON
    result: JSON | None
    created_at: datetime

    @classmethod
    def from_domain(cls, r: ToolRun) -> "ToolRunType":
        return cls(trace_id=r.trace_id, tool_name=r.tool_name, tool_type=r.tool_type, status=r.status,
                   error_message=r.error_message, duration_ms=r.duration_ms, http_status=r.http_status,
                   request_url=r.request_url, request_method=r.request_method, args=r.args, result=result_of(r),
                   created_at=r.created_at)


@strawberry.type(name="ToolTag")
class ToolTagType:
    id: str = strawberry.field(name="_id")
    name: str
    created_at: datetime

    @classmethod
    def from_domain(cls, t: ToolTag) -> "ToolTagType":
        return cls(id=str(t.id), name=t.name, created_at=t.created_at)


@strawberry.type
class ToolTypeSchema:
    """One type's description (`GET /v2.0/tools/schema?type=...`)."""

    tool_type: str
    title: str
    summary: str
    common_fields: JSON
    fields: JSON
    example: JSON


@strawberry.type
class ToolSchemaCatalog:
    """Every type's description (`GET /v2.0/tools/schema`)."""

    tool_types: list[str]
    common_fields: JSON
    types: JSON


ToolSchema = Annotated[Union[ToolTypeSchema, ToolSchemaCatalog], strawberry.union("ToolSchema")]


def schema_from_domain(value: dict[str, Any]) -> Any:
    if "types" in value:
        return ToolSchemaCatalog(tool_types=value["toolTypes"], common_fields=value["commonFields"], types=value["types"])
    return ToolTypeSchema(tool_type=value["toolType"], title=value["title"], summary=value["summary"],
                          common_fields=value["commonFields"], fields=value["fields"], example=value["example"])
