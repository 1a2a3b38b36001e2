"""Tool operations (spec: Endpoints → Tools), each declared once; the dashboard's tool tags and
`testTool` are GraphQL only. Error bodies of the tools routes carry `error: true`."""
from __future__ import annotations

import strawberry

from leadline.resolvers.context import RequestContext
from leadline.resolvers.tools import execute, queries, runs, tags, write
from leadline.schema.bindings import ERROR_MARKER, McpTool, Rest, spread
from leadline.schema.common import Listed, Paged, Pagination, listed, paged
from leadline.schema.operations import Operations
from leadline.schema.scalars import JSON
from leadline.schema.tools.inputs import ToolInput, payload, sent
from leadline.schema.tools.types import (ToolDeleted, ToolPage, ToolRunType, ToolSchema, ToolTagType, ToolType,
                                         ToolVersionType, schema_from_domain, tool_from_domain)

ops = Operations("tools", marker=ERROR_MARKER)

FEATURE = "ai_tools"
WRITE_ERRORS = ("TOOL_VALIDATION_FAILED", "EXTRA_MESSAGES_MAX", "TOOL_NAME_EXISTS")
VERSION_ERRORS = ("VERSION_REQUIRED", "HISTORY_VERSION_NOT_FOUND", "VERSION_NOT_RESTORABLE")


@ops.query(scope="tools:read", feature=FEATURE,
           description="How to build each tool type: fields, rules and a complete example (`type`: one type).",
           rest=Rest("GET", "/v2.0/tools/schema"), mcp=McpTool("get_tool_schema"))
async def tool_schema(ctx: RequestContext, type: str | None = None) -> ToolSchema:
    return schema_from_domain(queries.schema(type))


@ops.query(scope="tools:read", feature=FEATURE, description="Tools, newest first; filter by type, state, tag, name.",
           rest=Rest("GET", "/v2.0/tools", reply=spread), mcp=McpTool("list_tools"))
async def tools(ctx: RequestContext, tool_type: str | None = None, is_active: bool | None = None,
                tag: str | None = None, name: str | None = None, page: int | None = None,
                limit: int | None = None) -> ToolPage:
    result = await queries.list_tools(ctx, tool_type, is_active, tag, name, page, limit)
    return ToolPage(data=[tool_from_domain(t) for t in result.items], pagination=Pagination.from_domain(result))


@ops.query(scope="tools:read", feature=FEATURE, description="One tool (secrets masked).", errors=("TOOL_NOT_FOUND",),
           rest=Rest("GET", "/v2.0/tools/{toolId}"), mcp=McpTool("get_tool"))
async def tool(ctx: RequestContext, tool_id: str) -> ToolType:
    return tool_from_domain(await queries.get_tool(ctx, tool_id))


@ops.mutation(scope="tools:write", feature=FEATURE, description="Create a tool of one of the eight types.",
              limits=("max_tools",), errors=WRITE_ERRORS,
              rest=Rest("POST", "/v2.0/tools", status=201), mcp=McpTool("create_tool"))
async def create_tool(ctx: RequestContext, input: ToolInput) -> ToolType:
    return tool_from_domain(await write.create_tool(ctx, sent(input)))


@ops.mutation(scope="tools:write", feature=FEATURE,
              description="Change a tool: the patch is merged over it and the result validated again.",
              errors=("TOOL_NOT_FOUND", "TOOL_TYPE_IMMUTABLE", *WRITE_ERRORS),
              rest=Rest("PATCH", "/v2.0/tools/{toolId}"), mcp=McpTool("update_tool"))
async def update_tool(ctx: RequestContext, tool_id: str, input: ToolInput) -> ToolType:
    return tool_from_domain(await write.update_tool(ctx, tool_id, payload(input)))


@ops.mutation(scope="tools:write", feature=FEATURE, description="Set isActive, or flip it when the body omits it.",
              errors=("TOOL_NOT_FOUND",), rest=Rest("POST", "/v2.0/tools/{toolId}/toggle"), mcp=McpTool("toggle_tool"))
async def toggle_tool(ctx: RequestContext, tool_id: str, is_active: bool | None = None) -> ToolType:
    return tool_from_domain(await write.toggle_tool(ctx, tool_id, is_active))


@ops.mutation(scope="tools:write", feature=FEATURE,
              description="Delete a tool, its history and run logs; assistants using it lose it.",
              errors=("TOOL_NOT_FOUND",), rest=Rest("DELETE", "/v2.0/tools/{toolId}"), mcp=McpTool("delete_tool"))
async def delete_tool(ctx: RequestContext, tool_id: str) -> ToolDeleted:
    return ToolDeleted.from_domain(await write.delete_tool(ctx, tool_id))


@ops.query(scope="tools:read", feature=FEATURE, description="The tool's last 30 versions, newest first.",
           errors=("TOOL_NOT_FOUND",), rest=Rest("GET", "/v2.0/tools/{toolId}/history", reply=spread),
           mcp=McpTool("get_tool_history"))
async def tool_history(ctx: RequestContext, tool_id: str) -> Listed[ToolVersionType]:
    return listed(await queries.history(ctx, tool_id), ToolVersionType.from_domain)


@ops.mutation(scope="tools:write", feature=FEATURE,
              description="Bring back the configuration of a create or config_update version (not isActive).",
              errors=("TOOL_NOT_FOUND", "TOOL_NAME_EXISTS", *VERSION_ERRORS),
              rest=Rest("POST", "/v2.0/tools/{toolId}/restore"), mcp=McpTool("restore_tool_version"))
async def restore_tool(ctx: RequestContext, tool_id: str, version_number: int | None = None) -> ToolType:
    return tool_from_domain(await write.restore_tool(ctx, tool_id, version_number))


@ops.query(scope="tools:read", feature=FEATURE, description="The tool's run logs (15 days), newest first.",
           errors=("TOOL_NOT_FOUND",), rest=Rest("GET", "/v2.0/tools/{toolId}/runs", reply=spread),
           mcp=McpTool("list_tool_runs"))
async def tool_runs(ctx: RequestContext, tool_id: str, page: int | None = None,
                    limit: int | None = None) -> Paged[ToolRunType]:
    return paged(await runs.list_runs(ctx, tool_id, page, limit), ToolRunType.from_domain)


@ops.mutation(scope="tools:write", feature=FEATURE, errors=("TOOL_NOT_FOUND",),
              description="Run a tool now, as the assistant would (function: a real call), and log the run.")
async def test_tool(ctx: RequestContext, tool_id: strawberry.ID, args: JSON | None = None) -> ToolRunType:
    return ToolRunType.from_domain(await execute.test_tool(ctx, str(tool_id), args))


@ops.query(scope="tools:read", feature=FEATURE, description="The organisation's tool tags, alphabetical.")
async def tool_tags(ctx: RequestContext) -> list[ToolTagType]:
    return [ToolTagType.from_domain(t) for t in await tags.list_tags(ctx)]


@ops.mutation(scope="tools:write", feature=FEATURE, errors=("TOOL_TAG_EXISTS",), description="Create a tool tag.")
async def create_tool_tag(ctx: RequestContext, name: str | None = None) -> ToolTagType:
    return ToolTagType.from_domain(await tags.create_tag(ctx, name))


@ops.mutation(scope="tools:write", feature=FEATURE, errors=("TOOL_TAG_NOT_FOUND",),
              description="Delete a tool tag and take it off every tool.")
async def delete_tool_tag(ctx: RequestContext, tag_id: strawberry.ID) -> ToolTagType:
    return ToolTagType.from_domain(await tags.delete_tag(ctx, str(tag_id)))
