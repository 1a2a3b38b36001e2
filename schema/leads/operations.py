"""Lead segmentation operations (spec: Endpoints → Lead segmentation), each declared once."""
from __future__ import annotations

from leadline.resolvers.context import RequestContext
from leadline.resolvers.leads import audience, categories, followups, segmentation
from leadline.schema.bindings import McpTool, Rest, spread
from leadline.schema.leads.inputs import (LeadCategoryInput, LeadCategoryUpdateInput, LeadFollowupsInput,
                                          LeadInsightInput, LeadInsightUpdateInput, LeadSegmentationInput,
                                          LeadSettingsInput)
from leadline.schema.leads.types import (LeadCategoryChange, LeadCategoryDeleted, LeadCategoryList, LeadCategoryType,
                                         LeadFollowupsType, LeadInsightDeleted, LeadInsightList, LeadInsightType,
                                         LeadSegmentationType)
from leadline.schema.operations import Operations

ops = Operations("leads")

LIMITS = ("max_lead_categories", "max_ai_followups", "max_ai_insights")
GATES = ("PLAN_FEATURE_DISABLED", "PLAN_LIMIT_EXCEEDED")


@ops.query(scope="config:read", description="The whole lead segmentation configuration (created with the "
                                            "defaults on first read).",
           rest=Rest("GET", "/v2.0/leads/segmentation"), mcp=McpTool("get_lead_segmentation"))
async def lead_segmentation(ctx: RequestContext) -> LeadSegmentationType:
    return LeadSegmentationType.from_domain(await segmentation.get_segmentation(ctx))


@ops.mutation(scope="config:write", description="Replace the top-level keys sent (a list sent replaces the whole "
                                                "list; renames here are not applied to contacts).",
              limits=LIMITS, errors=(*GATES, "CATEGORY_EXISTS", "INSIGHT_EXISTS", "INVALID_VALUE_TYPE"),
              rest=Rest("PUT", "/v2.0/leads/segmentation"), mcp=McpTool("replace_lead_segmentation"))
async def replace_lead_segmentation(ctx: RequestContext, input: LeadSegmentationInput) -> LeadSegmentationType:
    return LeadSegmentationType.from_domain(await segmentation.replace_segmentation(ctx, input.to_domain()))


@ops.mutation(scope="config:write", description="Change any of the seven settings; categories, follow-ups and "
                                                "insights are untouched.",
              errors=("PLAN_FEATURE_DISABLED",),
              rest=Rest("PATCH", "/v2.0/leads/segmentation/settings"), mcp=McpTool("update_lead_settings"))
async def update_lead_settings(ctx: RequestContext, input: LeadSettingsInput) -> LeadSegmentationType:
    return LeadSegmentationType.from_domain(await segmentation.update_settings(ctx, input.to_domain()))


@ops.query(scope="config:read", description="Lead categories, with whether categorisation is enabled.",
           rest=Rest("GET", "/v2.0/leads/categories", reply=spread), mcp=McpTool("list_lead_categories"))
async def lead_categories(ctx: RequestContext) -> LeadCategoryList:
    return LeadCategoryList.from_domain(await categories.list_categories(ctx))


@ops.query(scope="config:read", description="One lead category by name (case-insensitive).",
           errors=("CATEGORY_NOT_FOUND",),
           rest=Rest("GET", "/v2.0/leads/categories/{name}"), mcp=McpTool("list_lead_categories", variant="name"))
async def lead_category(ctx: RequestContext, name: str) -> LeadCategoryType:
    return LeadCategoryType.from_domain(await categories.get_category(ctx, name))


@ops.mutation(scope="config:write", description="Create a lead category (names are unique case-insensitively).",
              limits=("max_lead_categories", "max_ai_followups"), errors=("PLAN_LIMIT_EXCEEDED", "CATEGORY_EXISTS"),
              rest=Rest("POST", "/v2.0/leads/categories", status=201), mcp=McpTool("create_lead_category"))
async def create_lead_category(ctx: RequestContext, input: LeadCategoryInput) -> LeadCategoryType:
    return LeadCategoryType.from_domain(await categories.create_category(ctx, input.to_domain()))


@ops.mutation(scope="config:write", description="Change a category's name, description or fuDisabled; a rename "
                                                "moves its contacts' lead_category too.",
              errors=("CATEGORY_NOT_FOUND", "CATEGORY_EXISTS"),
              rest=Rest("PATCH", "/v2.0/leads/categories/{name}", reply=spread), mcp=McpTool("update_lead_category"))
async def update_lead_category(ctx: RequestContext, name: str, input: LeadCategoryUpdateInput) -> LeadCategoryChange:
    return LeadCategoryChange.from_domain(await categories.update_category(ctx, name, input.to_domain()))


@ops.mutation(scope="config:write", description="Delete a category; while contacts use it, `reassignTo` (another "
                                                "category, or empty to clear) moves them first.",
              errors=("CATEGORY_NOT_FOUND", "CATEGORY_IN_USE"),
              rest=Rest("DELETE", "/v2.0/leads/categories/{name}"), mcp=McpTool("delete_lead_category"))
async def delete_lead_category(ctx: RequestContext, name: str, reassign_to: str | None = None) -> LeadCategoryDeleted:
    return LeadCategoryDeleted.from_domain(await categories.delete_category(ctx, name, reassign_to))


@ops.query(scope="config:read", description="The default follow-ups and each category's.",
           rest=Rest("GET", "/v2.0/leads/followups"), mcp=McpTool("get_lead_followups"))
async def lead_followups(ctx: RequestContext) -> LeadFollowupsType:
    return LeadFollowupsType.from_domain(await followups.get_followups(ctx))


@ops.mutation(scope="config:write", description="Replace one category's follow-ups.",
              limits=("max_ai_followups",), errors=("PLAN_LIMIT_EXCEEDED", "CATEGORY_NOT_FOUND"),
              rest=Rest("PUT", "/v2.0/leads/categories/{name}/followups"),
              mcp=McpTool("set_lead_followups", variant="category"))
async def set_lead_category_followups(ctx: RequestContext, name: str, input: LeadFollowupsInput) -> LeadFollowupsType:
    return LeadFollowupsType.from_domain(await followups.set_category_followups(ctx, name, input.to_domain()))


@ops.mutation(scope="config:write", description="Replace the default follow-ups (used by categories without their own).",
              limits=("max_ai_followups",), errors=("PLAN_LIMIT_EXCEEDED",),
              rest=Rest("PUT", "/v2.0/leads/followups/default"), mcp=McpTool("set_lead_followups"))
async def set_lead_default_followups(ctx: RequestContext, input: LeadFollowupsInput) -> LeadFollowupsType:
    return LeadFollowupsType.from_domain(await followups.set_default_followups(ctx, input.to_domain()))


@ops.query(scope="config:read", description="Insights (audience segments) the AI extracts into lead_segments.",
           rest=Rest("GET", "/v2.0/leads/insights", reply=spread), mcp=McpTool("list_lead_insights"))
async def lead_insights(ctx: RequestContext) -> LeadInsightList:
    return LeadInsightList.from_domain(await audience.list_insights(ctx))


@ops.query(scope="config:read", description="One insight by key.", errors=("INSIGHT_NOT_FOUND",),
           rest=Rest("GET", "/v2.0/leads/insights/{key}"), mcp=McpTool("list_lead_insights", variant="key"))
async def lead_insight(ctx: RequestContext, key: str) -> LeadInsightType:
    return LeadInsightType.from_domain(await audience.get_insight(ctx, key))


@ops.mutation(scope="config:write", description="Create an insight (valueType defaults to text).",
              limits=("max_ai_insights",), errors=("PLAN_LIMIT_EXCEEDED", "INSIGHT_EXISTS", "INVALID_VALUE_TYPE"),
              rest=Rest("POST", "/v2.0/leads/insights", status=201), mcp=McpTool("create_lead_insight"))
async def create_lead_insight(ctx: RequestContext, input: LeadInsightInput) -> LeadInsightType:
    return LeadInsightType.from_domain(await audience.create_insight(ctx, input.to_domain()))


@ops.mutation(scope="config:write", description="Change an insight's name, valueType, options or description "
                                                "(its key cannot change).",
              errors=("INSIGHT_NOT_FOUND", "INVALID_VALUE_TYPE"),
              rest=Rest("PATCH", "/v2.0/leads/insights/{key}"), mcp=McpTool("update_lead_insight"))
async def update_lead_insight(ctx: RequestContext, key: str, input: LeadInsightUpdateInput) -> LeadInsightType:
    return LeadInsightType.from_domain(await audience.update_insight(ctx, key, input.to_domain()))


@ops.mutation(scope="config:write", description="Delete an insight (values already on contacts are kept).",
              errors=("INSIGHT_NOT_FOUND",),
              rest=Rest("DELETE", "/v2.0/leads/insights/{key}"), mcp=McpTool("delete_lead_insight"))
async def delete_lead_insight(ctx: RequestContext, key: str) -> LeadInsightDeleted:
    return LeadInsightDeleted.from_domain(await audience.delete_insight(ctx, key))
