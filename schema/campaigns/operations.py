"""Campaign operations (spec: Endpoints → Campaigns) and segments (GraphQL), each declared once.
Error bodies of the campaigns routes carry `error: true`."""
from __future__ import annotations

from leadline.resolvers.campaigns import create, report
from leadline.resolvers.campaigns import segments as segment_store
from leadline.resolvers.context import RequestContext
from leadline.schema.bindings import ERROR_MARKER, McpTool, Reply, Rest, shaped, spread
from leadline.schema.campaigns.inputs import CampaignPreviewInput, CreateCampaignInput, SegmentInput
from leadline.schema.campaigns.types import (CampaignCancelled, CampaignCreateResult, CampaignPreview, CampaignReport,
                                             CampaignRow, SegmentType)
from leadline.schema.common import Paged, paged
from leadline.schema.operations import Operations

ops = Operations("campaigns", marker=ERROR_MARKER)

AUDIENCE_ERRORS = ("CAMPAIGN_AUDIENCE_INVALID", "BRAND_NUMBER_MISSING", "BIZACCT_NOT_FOUND")


@shaped(lambda out: {200: {"dryRun": out.const(True), "data": out.field("resolved")},
                     201: {"data": out.field("campaign")}})
def _create_reply(result: dict) -> Reply:
    """201 with the campaign; a dry run 200 with `dryRun: true` beside its `data`."""
    if result["dryRun"]:
        return Reply({"dryRun": True, "data": result["resolved"]}, status=200)
    return Reply({"data": result["campaign"]}, status=201)


@ops.query(scope="campaigns:read", feature="campaigns", description="Who an audience reaches: totals, buckets, a sample.",
           errors=AUDIENCE_ERRORS, internal="CAMPAIGN_PREVIEW_FAILED",
           rest=Rest("POST", "/v2.0/campaigns/preview"), mcp=McpTool("preview_campaign_audience"))
async def campaign_preview(ctx: RequestContext, input: CampaignPreviewInput) -> CampaignPreview:
    audience = input.audience.to_domain() if input.audience else None
    return CampaignPreview.from_domain(await create.preview(ctx, input.brand_number, audience))


@ops.mutation(scope="campaigns:write", feature="campaigns",
              description="Create a campaign (now, scheduled, or a dry run that only validates and resolves).",
              limits=("max_campaigns_per_month", "max_contacts"), events=("contact.created",),
              errors=(*AUDIENCE_ERRORS, "CAMPAIGN_NAME_REQUIRED", "CAMPAIGN_TEMPLATE_REQUIRED", "TEMPLATE_NOT_FOUND",
                      "CAMPAIGN_TEMPLATE_NOT_APPROVED", "CAMPAIGN_VARIABLES_INVALID", "CAMPAIGN_EMPTY_AUDIENCE",
                      "INVALID_SCHEDULE_TIME"),
              internal="CAMPAIGN_CREATE_FAILED",
              rest=Rest("POST", "/v2.0/campaigns", reply=_create_reply), mcp=McpTool("create_campaign"))
async def create_campaign(ctx: RequestContext, input: CreateCampaignInput) -> CampaignCreateResult:
    return CampaignCreateResult.from_domain(await create.create(ctx, input.to_domain()))


@ops.query(scope="campaigns:read", feature="campaigns", description="Campaigns, newest first, with their counters.",
           errors=("INVALID_CAMPAIGN_STATUS",), internal="CAMPAIGN_LIST_FAILED",
           rest=Rest("GET", "/v2.0/campaigns", reply=spread), mcp=McpTool("list_campaigns"))
async def campaigns(ctx: RequestContext, status: str | None = None, brand_number: str | None = None,
                    page: int | None = None, limit: int | None = None) -> Paged[CampaignRow]:
    rows, counters = await report.list_campaigns(ctx, status, brand_number, page, limit)
    return paged(rows, lambda c: CampaignRow.from_domain((c, counters[c.id])))


@ops.query(scope="campaigns:read", feature="campaigns",
           description="A campaign's counters, rates, costs, clicks and failures.",
           errors=("CAMPAIGN_NOT_FOUND",), internal="CAMPAIGN_REPORT_FAILED",
           rest=Rest("GET", "/v2.0/campaigns/{campaignId}/report"), mcp=McpTool("get_campaign_report"))
async def campaign_report(ctx: RequestContext, campaign_id: str) -> CampaignReport:
    return CampaignReport.from_domain(await report.report(ctx, campaign_id))


@ops.mutation(scope="campaigns:write", feature="campaigns",
              description="Cancel a campaign: its pending recipients are skipped; what was sent stays sent.",
              errors=("CAMPAIGN_NOT_FOUND", "CAMPAIGN_NOT_CANCELLABLE"), internal="CAMPAIGN_CANCEL_FAILED",
              rest=Rest("POST", "/v2.0/campaigns/{campaignId}/cancel"), mcp=McpTool("cancel_campaign"))
async def cancel_campaign(ctx: RequestContext, campaign_id: str) -> CampaignCancelled:
    return CampaignCancelled.from_domain(await create.cancel(ctx, campaign_id))


@ops.query(scope="config:read", description="Saved contact filters that campaign audiences reference (GraphQL only).")
async def segments(ctx: RequestContext, page: int | None = None, limit: int | None = None) -> Paged[SegmentType]:
    return paged(await segment_store.list_segments(ctx, page, limit), SegmentType.from_domain)


@ops.mutation(scope="config:write", description="Save a contact filter as a segment.")
async def create_segment(ctx: RequestContext, input: SegmentInput) -> SegmentType:
    return SegmentType.from_domain(await segment_store.create_segment(ctx, input.name, input.filter, input.is_active))


@ops.mutation(scope="config:write", description="Rename a segment, change its filter or (de)activate it.",
              errors=("SEGMENT_NOT_FOUND",))
async def update_segment(ctx: RequestContext, segment_id: str, input: SegmentInput) -> SegmentType:
    return SegmentType.from_domain(await segment_store.update_segment(ctx, segment_id, input.name, input.filter,
                                                                 input.is_active))


@ops.mutation(scope="config:write", description="Delete a segment.", errors=("SEGMENT_NOT_FOUND",))
async def delete_segment(ctx: RequestContext, segment_id: str) -> SegmentType:
    return SegmentType.from_domain(await segment_store.delete_segment(ctx, segment_id))
