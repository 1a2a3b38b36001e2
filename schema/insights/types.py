"""Insights output types in the spec's shapes (daily summary records, pipeline snapshots)."""
from __future__ import annotations

import strawberry

from leadline.models.insights import PipelineSnapshot, SummaryCounts
from leadline.resolvers.insights.queries import DayRecord, Report
from leadline.schema.scalars import JSON


@strawberry.type
class InsightCost:
    total_millidollars: int = strawberry.field(description="Divide by 1000 for USD.")


@strawberry.type
class InsightConversations:
    count: int
    unique_users: int
    total_messages: int
    user_messages: int
    assistant_messages: int
    total_duration_sec: int


@strawberry.type
class InsightMedia:
    incoming: int
    outgoing: int
    audio_seconds: int


@strawberry.type
class InsightModelCount:
    model: str
    messages: int


@strawberry.type
class InsightAi:
    tools_used: int
    follow_up_count: int
    model_breakdown: list[InsightModelCount]


@strawberry.type
class DailySummaryRecord:
    date: str
    platform: str
    cost: InsightCost
    conversations: InsightConversations
    media: InsightMedia
    ai: InsightAi
    hourly_conversations: list[int] = strawberry.field(description="24 counts, by hour of the organisation's day.")

    @classmethod
    def from_domain(cls, r: DayRecord) -> "DailySummaryRecord":
        c: SummaryCounts = r.counts
        return cls(date=r.date, platform=r.platform, cost=InsightCost(total_millidollars=c.totalMillidollars),
                   conversations=InsightConversations(count=c.count, unique_users=c.uniqueUsers,
                                                      total_messages=c.totalMessages, user_messages=c.userMessages,
                                                      assistant_messages=c.assistantMessages,
                                                      total_duration_sec=c.totalDurationSec),
                   media=InsightMedia(incoming=c.mediaIncoming, outgoing=c.mediaOutgoing, audio_seconds=c.audioSeconds),
                   ai=InsightAi(tools_used=c.toolsUsed, follow_up_count=c.followUpCount,
                                model_breakdown=[InsightModelCount(model=m.model, messages=m.messages)
                                                 for m in c.modelBreakdown]),
                   hourly_conversations=list(c.hourlyConversations))


@strawberry.type
class InsightRangeMeta:
    from_: str = strawberry.field(name="from")
    to: str
    timezone: str = strawberry.field(description="The organisation's time zone: the days are its local days.")


@strawberry.type
class DailySummaryReport:
    data: list[DailySummaryRecord]
    meta: InsightRangeMeta

    @classmethod
    def from_domain(cls, report: Report) -> "DailySummaryReport":
        return cls(data=[DailySummaryRecord.from_domain(r) for r in report.records], meta=_meta(report))


@strawberry.type(name="PipelineSnapshot")
class PipelineSnapshotType:
    date: str
    stage_counts: JSON = strawberry.field(description="Contacts per lead category: {<category>: count}.")
    new_contacts: JSON = strawberry.field(description="Contacts created that day: {<platform>: count}.")
    opt_outs: int
    never_categorized: int

    @classmethod
    def from_domain(cls, s: PipelineSnapshot, platforms: tuple[str, ...]) -> "PipelineSnapshotType":
        new = s.newContacts if len(platforms) > 1 else {p: s.newContacts.get(p, 0) for p in platforms}
        return cls(date=s.date, stage_counts={st.name: st.count for st in s.stages}, new_contacts=dict(new),
                   opt_outs=s.optOuts, never_categorized=s.neverCategorized)


@strawberry.type
class PipelineSnapshotReport:
    data: list[PipelineSnapshotType]
    meta: InsightRangeMeta

    @classmethod
    def from_domain(cls, report: Report, platforms: tuple[str, ...]) -> "PipelineSnapshotReport":
        return cls(data=[PipelineSnapshotType.from_domain(s, platforms) for s in report.records], meta=_meta(report))


def _meta(report: Report) -> InsightRangeMeta:
    return InsightRangeMeta(from_=report.start.isoformat(), to=report.end.isoformat(), timezone=report.timezone)
