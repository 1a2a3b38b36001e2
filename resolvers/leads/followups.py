"""Follow-ups: the default set and each category's own (spec: Lead segmentation 6).

Every follow-up, active or not, counts toward `max_ai_followups`. They run only while
`isFollowupEnabled` is true and their category is not `fuDisabled` (the AI runtime's rule).
"""
from __future__ import annotations

from dataclasses import dataclass

from leadline.models.leads import LeadCategory, LeadFollowup, LeadSegmentation
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import detail, validation_error
from leadline.resolvers.leads import store
from leadline.resolvers.leads.categories import index_of
from leadline.resolvers.leads.writes import FollowupWrite, Problems, followups


@dataclass(frozen=True)
class FollowupsView:
    default: list[LeadFollowup]
    categories: list[LeadCategory]

    @classmethod
    def of(cls, config: LeadSegmentation) -> "FollowupsView":
        return cls(config.defaultFollowups, config.categories)


def _followups(writes: list[FollowupWrite] | None) -> list[LeadFollowup]:
    if writes is None:
        raise validation_error([detail("followups", "REQUIRED", "followups is required (an empty list clears the set)")])
    problems = Problems()
    result = followups(writes, "followups", problems)
    problems.raise_if_any()
    return result


async def get_followups(ctx: RequestContext) -> FollowupsView:
    return FollowupsView.of(await store.load(ctx))


async def set_category_followups(ctx: RequestContext, name: str, writes: list[FollowupWrite] | None) -> FollowupsView:
    new = _followups(writes)

    def change(config: LeadSegmentation) -> None:
        config.categories[index_of(config, name)].followups = new

    return FollowupsView.of((await store.write(ctx, change))[0])


async def set_default_followups(ctx: RequestContext, writes: list[FollowupWrite] | None) -> FollowupsView:
    new = _followups(writes)

    def change(config: LeadSegmentation) -> None:
        config.defaultFollowups = new

    return FollowupsView.of((await store.write(ctx, change))[0])
