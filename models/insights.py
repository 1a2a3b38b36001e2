"""Insights: daily rollups per platform and daily lead-pipeline snapshots (docs/insights.md).

Both are written by the rollup job (jobs/insights.py) for one organisation-local day, keyed so that a
re-run rewrites the same documents. Snapshots expire 365 days after their date (TTL index).
"""
from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field
from pymongo import ASCENDING, IndexModel

from leadline.models.base import TenantDocument, utcnow

PLATFORMS = ("chatapp", "photoapp", "pageapp")
SNAPSHOT_TTL_SECONDS = 365 * 24 * 3600


class ModelCount(BaseModel):
    model: str
    messages: int = 0


class SummaryCounts(BaseModel):
    """The counters of one day on one platform, in the spec's shape."""

    totalMillidollars: int = 0
    count: int = 0
    uniqueUsers: int = 0
    totalMessages: int = 0
    userMessages: int = 0
    assistantMessages: int = 0
    totalDurationSec: int = 0
    mediaIncoming: int = 0
    mediaOutgoing: int = 0
    audioSeconds: int = 0
    toolsUsed: int = 0
    followUpCount: int = 0
    modelBreakdown: list[ModelCount] = Field(default_factory=list)
    hourlyConversations: list[int] = Field(default_factory=lambda: [0] * 24)


class DailySummary(TenantDocument):
    """One organisation-local day (`date`, YYYY-MM-DD) on one platform."""

    date: str
    platform: str
    counts: SummaryCounts = Field(default_factory=SummaryCounts)
    computed_at: datetime = Field(default_factory=utcnow)

    class Settings:
        name = "insight_daily_summaries"
        indexes = [IndexModel([("org_id", ASCENDING), ("date", ASCENDING), ("platform", ASCENDING)], unique=True),
                   # Date ranges read on their own index: SecantusDB's scan of a range on the middle field of
                   # the three-field index drops the entries of the range's upper bound.
                   IndexModel([("org_id", ASCENDING), ("date", ASCENDING)])]


class StageCount(BaseModel):
    # A list of {name, count}: category names may hold characters a document key may not ('.', '$').
    name: str
    count: int


class PipelineSnapshot(TenantDocument):
    """The lead pipeline as it stood at the end of one organisation-local day."""

    date: str
    # The date at 00:00 UTC: the TTL index expires the snapshot 365 days after it.
    day: datetime
    stages: list[StageCount] = Field(default_factory=list)
    newContacts: dict[str, int] = Field(default_factory=dict)
    optOuts: int = 0
    neverCategorized: int = 0
    taken_at: datetime = Field(default_factory=utcnow)

    class Settings:
        name = "insight_pipeline_snapshots"
        indexes = [IndexModel([("org_id", ASCENDING), ("date", ASCENDING)], unique=True),
                   IndexModel([("day", ASCENDING)], expireAfterSeconds=SNAPSHOT_TTL_SECONDS)]


MODELS: list[type] = [DailySummary, PipelineSnapshot]
