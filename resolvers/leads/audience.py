"""Insights (audience segments): what the AI extracts into `lead_segments` (spec: Lead segmentation 7).

Addressed by `key`, exactly (keys are identifiers). Deleting or retyping an insight leaves the values
already stored on contacts as they are (as custom fields do).
"""
from __future__ import annotations

from dataclasses import dataclass

from leadline.models.leads import LeadInsight, LeadSegmentation
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.json_limits import clip
from leadline.resolvers.leads import store
from leadline.resolvers.leads.writes import InsightWrite, Problems, insight, insight_changes


@dataclass(frozen=True)
class InsightDeleted:
    key: str
    name: str


def not_found(key: str) -> ApiError:
    return ApiError("INSIGHT_NOT_FOUND", f"No insight with key '{clip(key)}'.")


def exists(key: str) -> ApiError:
    return ApiError("INSIGHT_EXISTS", f"An insight with key '{clip(key)}' already exists.")


def _index(config: LeadSegmentation, key: str) -> int:
    for i, existing in enumerate(config.audienceSegments):
        if existing.key == key:
            return i
    raise not_found(key)


async def list_insights(ctx: RequestContext) -> list[LeadInsight]:
    return (await store.load(ctx)).audienceSegments


async def get_insight(ctx: RequestContext, key: str) -> LeadInsight:
    config = await store.load(ctx)
    return config.audienceSegments[_index(config, key)]


async def create_insight(ctx: RequestContext, write: InsightWrite) -> LeadInsight:
    problems = Problems()
    new = insight(write, "", problems)
    problems.raise_if_any()

    def change(config: LeadSegmentation) -> LeadInsight:
        if any(existing.key == new.key for existing in config.audienceSegments):
            raise exists(new.key)
        config.audienceSegments.append(new)
        return new

    return (await store.write(ctx, change))[1]


async def update_insight(ctx: RequestContext, key: str, write: InsightWrite) -> LeadInsight:
    problems = Problems()
    changes = insight_changes(write, problems)
    problems.raise_if_any()

    def change(config: LeadSegmentation) -> LeadInsight:
        current = config.audienceSegments[_index(config, key)]
        for field, value in changes.items():
            setattr(current, field, value)
        return current

    return (await store.write(ctx, change))[1]


async def delete_insight(ctx: RequestContext, key: str) -> InsightDeleted:
    def change(config: LeadSegmentation) -> InsightDeleted:
        gone = config.audienceSegments.pop(_index(config, key))
        return InsightDeleted(gone.key, gone.name)

    return (await store.write(ctx, change))[1]
