"""Template operations (spec: Endpoints → Templates), each declared once. Error bodies carry `error: true`."""
from __future__ import annotations

from leadline.resolvers.context import RequestContext
from leadline.resolvers.templates import create, queries
from leadline.schema.bindings import ERROR_MARKER, McpTool, Rest, spread
from leadline.schema.operations import Operations
from leadline.schema.templates.inputs import CreateTemplateInput
from leadline.schema.templates.types import MessageTemplateDetail, TemplateCreated, TemplateListResult

ops = Operations("templates", marker=ERROR_MARKER)


@ops.query(scope="templates:read", description="Templates, newest first; filter by status and category.",
           internal="FAILED_TO_FETCH_TEMPLATES",
           rest=Rest("GET", "/v2.0/templates", reply=spread), mcp=McpTool("list_templates"))
async def templates(ctx: RequestContext, status: str | None = None, category: str | None = None) -> TemplateListResult:
    return TemplateListResult.from_domain(await queries.list_templates(ctx, status, category))


@ops.query(scope="templates:read", description="One template by 24-hex _id or numeric provider templateId.",
           errors=("INVALID_TEMPLATE_ID", "TEMPLATE_NOT_FOUND"), internal="FAILED_TO_FETCH_TEMPLATES",
           rest=Rest("GET", "/v2.0/templates/{id}"), mcp=McpTool("get_template"))
async def template(ctx: RequestContext, id: str) -> MessageTemplateDetail:
    return MessageTemplateDetail.from_domain(await queries.get_template(ctx, id))


@ops.mutation(scope="templates:write", description="Validate a template and submit it to the provider for review.",
              limits=("max_templates",), internal="TEMPLATE_CREATE_FAILED",
              errors=("BRAND_NUMBER_MISSING", "BIZACCT_NOT_FOUND", "BIZACCT_NOT_REVIEWED",
                      "TEMPLATE_VALIDATION_FAILED", "TEMPLATE_RATE_LIMITED", "PROVIDER_REJECTED",
                      "MEDIA_UPLOAD_FAILED", "PROVIDER_API_ERROR"),
              rest=Rest("POST", "/v2.0/templates", status=201), mcp=McpTool("create_template"))
async def create_template(ctx: RequestContext, input: CreateTemplateInput) -> TemplateCreated:
    return TemplateCreated.from_domain(await create.create_template(ctx, input.to_domain()))
