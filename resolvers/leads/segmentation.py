"""The whole configuration: read, replace the keys sent (PUT), change settings (PATCH).

PUT replaces only the top-level keys present; a list present replaces the whole list (a duplicate
inside it refuses the whole PUT). Category renames inside a PUT are not cascaded to contacts (the
spec says so), and a category a PUT drops stays on the contacts that carry it.
"""
from __future__ import annotations

from leadline.models.leads import LeadSegmentation
from leadline.resolvers.context import RequestContext
from leadline.resolvers.leads import store
from leadline.resolvers.leads.audience import exists as insight_exists
from leadline.resolvers.leads.categories import exists as category_exists
from leadline.resolvers.leads.writes import (Problems, SegmentationWrite, SettingsWrite, categories, followups,
                                             insights, settings_changes)


async def get_segmentation(ctx: RequestContext) -> LeadSegmentation:
    return await store.load(ctx)


async def replace_segmentation(ctx: RequestContext, write: SegmentationWrite) -> LeadSegmentation:
    problems = Problems()
    changes = settings_changes(write.settings, problems)
    if write.categories is not None:
        changes["categories"] = categories(write.categories, "categories", problems)
    if write.defaultFollowups is not None:
        changes["defaultFollowups"] = followups(write.defaultFollowups, "defaultFollowups", problems)
    if write.audienceSegments is not None:
        changes["audienceSegments"] = insights(write.audienceSegments, "audienceSegments", problems)
    problems.raise_if_any()
    seen: set[str] = set()
    for category in changes.get("categories", ()):
        if category.name_key in seen:
            raise category_exists(category.name)
        seen.add(category.name_key)
    keys: set[str] = set()
    for insight in changes.get("audienceSegments", ()):
        if insight.key in keys:
            raise insight_exists(insight.key)
        keys.add(insight.key)

    def change(config: LeadSegmentation) -> None:
        for field, value in changes.items():
            setattr(config, field, value)

    return (await store.write(ctx, change))[0]


async def update_settings(ctx: RequestContext, write: SettingsWrite) -> LeadSegmentation:
    problems = Problems()
    changes = settings_changes(write, problems)
    problems.raise_if_any()

    def change(config: LeadSegmentation) -> None:
        for field, value in changes.items():
            setattr(config, field, value)

    return (await store.write(ctx, change))[0]
