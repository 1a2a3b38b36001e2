"""Assistant operations (spec: Endpoints → Assistants), each declared once. Validation errors
(ASSISTANT_VALIDATION_FAILED, MODEL_INVALID_FOR_PROVIDER) carry `error: true`, the group's others
`success: false`."""
from __future__ import annotations

from leadline.resolvers.assistants import queries, write
from leadline.resolvers.context import RequestContext
from leadline.schema.assistants.inputs import AssistantInput, AssistantUpdateInput
from leadline.schema.assistants.types import AssistantDeleted, AssistantOptions, AssistantType, AssistantVersionType
from leadline.schema.bindings import ErrorMarker, McpTool, Rest, spread
from leadline.schema.common import Listed, Paged, listed, paged
from leadline.schema.operations import Operations

ops = Operations("assistants", marker=ErrorMarker(
    error_codes=frozenset({"ASSISTANT_VALIDATION_FAILED", "MODEL_INVALID_FOR_PROVIDER"})))

FEATURE = "ai_assistants"
VALIDATION = ("ASSISTANT_VALIDATION_FAILED", "MODEL_INVALID_FOR_PROVIDER", "PLATFORM_INVALID")
CHANNEL = ("BIZACCT_NOT_FOUND", "PHOTOAPP_NOT_CONNECTED", "PAGEAPP_NOT_CONNECTED", "CHANNEL_AMBIGUOUS")
VERSION_ERRORS = ("VERSION_REQUIRED", "HISTORY_VERSION_NOT_FOUND", "VERSION_NOT_RESTORABLE")


@ops.query(scope="assistants:read", feature=FEATURE,
           description="Providers and their models, platforms, voices and the bounds of the numeric settings.",
           rest=Rest("GET", "/v2.0/assistants/options"), mcp=McpTool("get_assistant_options"))
async def assistant_options(ctx: RequestContext) -> AssistantOptions:
    return AssistantOptions.from_domain(queries.options())


@ops.query(scope="assistants:read", feature=FEATURE, errors=("PLATFORM_INVALID",),
           description="Assistants, newest first; filter by platform, name, isActive, isConnected.",
           rest=Rest("GET", "/v2.0/assistants", reply=spread), mcp=McpTool("list_assistants"))
async def assistants(ctx: RequestContext, platform: str | None = None, name: str | None = None,
                     is_active: bool | None = None, is_connected: bool | None = None, page: int | None = None,
                     limit: int | None = None) -> Paged[AssistantType]:
    result = await queries.list_assistants(ctx, platform, name, is_active, is_connected, page, limit)
    return paged(result, AssistantType.from_domain)


@ops.query(scope="assistants:read", feature=FEATURE, description="One assistant with its whole configuration.",
           errors=("ASSISTANT_NOT_FOUND",), rest=Rest("GET", "/v2.0/assistants/{modelId}"),
           mcp=McpTool("get_assistant"))
async def assistant(ctx: RequestContext, model_id: str) -> AssistantType:
    return AssistantType.from_domain(await queries.get_assistant(ctx, model_id))


@ops.mutation(scope="assistants:write", feature=FEATURE, limits=("max_models",), errors=(*VALIDATION, *CHANNEL),
              description="Create an assistant, optionally bound to a connected channel.",
              rest=Rest("POST", "/v2.0/assistants", status=201), mcp=McpTool("create_assistant"))
async def create_assistant(ctx: RequestContext, input: AssistantInput) -> AssistantType:
    fields, channel = input.to_domain()
    return AssistantType.from_domain(await write.create_assistant(ctx, fields, channel))


@ops.mutation(scope="assistants:write", feature=FEATURE, errors=("ASSISTANT_NOT_FOUND", *VALIDATION, *CHANNEL),
              description="Change an assistant (partial); channel {activate|deactivate}; clearChatHistory.",
              rest=Rest("PATCH", "/v2.0/assistants/{modelId}"), mcp=McpTool("update_assistant"))
async def update_assistant(ctx: RequestContext, model_id: str, input: AssistantUpdateInput) -> AssistantType:
    fields, channel = input.to_domain()
    updated = await write.update_assistant(ctx, model_id, fields, channel, input.clear_chat_history or None)
    return AssistantType.from_domain(updated)


@ops.mutation(scope="assistants:write", feature=FEATURE, errors=("ASSISTANT_NOT_FOUND", "IS_ACTIVE_REQUIRED"),
              description="Turn an assistant on or off (body isActive).",
              rest=Rest("POST", "/v2.0/assistants/{modelId}/toggle"), mcp=McpTool("toggle_assistant"))
async def toggle_assistant(ctx: RequestContext, model_id: str, is_active: bool | None = None) -> AssistantType:
    return AssistantType.from_domain(await write.toggle_assistant(ctx, model_id, is_active))


@ops.mutation(scope="assistants:write", feature=FEATURE, errors=("ASSISTANT_NOT_FOUND",),
              description="Delete an assistant and its history.",
              rest=Rest("DELETE", "/v2.0/assistants/{modelId}"), mcp=McpTool("delete_assistant"))
async def delete_assistant(ctx: RequestContext, model_id: str) -> AssistantDeleted:
    return AssistantDeleted.from_domain(await write.delete_assistant(ctx, model_id))


@ops.query(scope="assistants:read", feature=FEATURE, errors=("ASSISTANT_NOT_FOUND",),
           description="The assistant's last 30 versions, newest first.",
           rest=Rest("GET", "/v2.0/assistants/{modelId}/history", reply=spread), mcp=McpTool("get_assistant_history"))
async def assistant_history(ctx: RequestContext, model_id: str) -> Listed[AssistantVersionType]:
    return listed(await queries.history(ctx, model_id), AssistantVersionType.from_domain)


@ops.mutation(scope="assistants:write", feature=FEATURE, errors=("ASSISTANT_NOT_FOUND", *VERSION_ERRORS),
              description="Bring back the configuration of a create or config_update version (not isActive, "
                          "not the channel).",
              rest=Rest("POST", "/v2.0/assistants/{modelId}/restore"), mcp=McpTool("restore_assistant_version"))
async def restore_assistant(ctx: RequestContext, model_id: str, version_number: int | None = None,
                            clear_chat_history: bool | None = None) -> AssistantType:
    restored = await write.restore_assistant(ctx, model_id, version_number, clear_chat_history)
    return AssistantType.from_domain(restored)
