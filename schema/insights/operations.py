"""Insights operations (spec: Endpoints → Insights), each declared once."""
from __future__ import annotations

from typing import Annotated

import strawberry

from leadline.resolvers.context import RequestContext
from leadline.resolvers.insights import queries
from leadline.schema.bindings import McpTool, Rest, spread
from leadline.schema.insights.types import DailySummaryReport, PipelineSnapshotReport
from leadline.schema.operations import Operations

ops = Operations("insights")

From = Annotated[str | None, strawberry.argument(name="from", description="YYYY-MM-DD, inclusive.")]
To = Annotated[str | None, strawberry.argument(name="to", description="YYYY-MM-DD, inclusive; default today.")]


@ops.query(scope="insights:read", description="Daily rollups per date and platform (the organisation's local days; "
                                              "today is live).",
           errors=("INVALID_DATE_RANGE",), internal="DAILY_SUMMARY_FAILED",
           rest=Rest("GET", "/v2.0/insights/daily-summary", reply=spread), mcp=McpTool("get_daily_summary"))
async def daily_summary(ctx: RequestContext, from_: From = None, to: To = None,
                        platform: str | None = None) -> DailySummaryReport:
    return DailySummaryReport.from_domain(await queries.daily_summary(ctx, from_, to, platform))


@ops.query(scope="insights:read", description="Daily lead-pipeline snapshots (kept 365 days).",
           errors=("INVALID_DATE_RANGE",), internal="PIPELINE_SNAPSHOTS_FAILED",
           rest=Rest("GET", "/v2.0/insights/pipeline-snapshots", reply=spread), mcp=McpTool("get_pipeline_snapshots"))
async def pipeline_snapshots(ctx: RequestContext, platform: str | None = None, from_: From = None,
                             to: To = None) -> PipelineSnapshotReport:
    report, platforms = await queries.pipeline_snapshots(ctx, platform, from_, to)
    return PipelineSnapshotReport.from_domain(report, platforms)
