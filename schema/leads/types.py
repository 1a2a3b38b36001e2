"""Lead segmentation output types and their explicit conversion from the stored shapes."""
from __future__ import annotations

import strawberry

from leadline.models.leads import LeadCategory, LeadFollowup, LeadInsight, LeadSegmentation
from leadline.resolvers.leads.audience import InsightDeleted
from leadline.resolvers.leads.categories import CategoryChange, CategoryDeleted, CategoryList
from leadline.resolvers.leads.followups import FollowupsView
from leadline.schema.common import ListMeta


@strawberry.type(name="LeadFollowup")
class LeadFollowupType:
    delay: float = strawberry.field(description="Seconds from classification.")
    prompt: str
    active: bool

    @classmethod
    def from_domain(cls, f: LeadFollowup) -> "LeadFollowupType":
        return cls(delay=f.delay, prompt=f.prompt, active=f.active)


@strawberry.type(name="LeadCategory")
class LeadCategoryType:
    name: str
    description: str
    fu_disabled: bool
    followups: list[LeadFollowupType]

    @classmethod
    def from_domain(cls, c: LeadCategory) -> "LeadCategoryType":
        return cls(name=c.name, description=c.description, fu_disabled=c.fuDisabled,
                   followups=[LeadFollowupType.from_domain(f) for f in c.followups])


@strawberry.type(name="LeadInsight")
class LeadInsightType:
    """An audience segment: what the AI extracts into a contact's `lead_segments[key]`."""

    key: str
    name: str
    value_type: str
    options: list[str]
    description: str

    @classmethod
    def from_domain(cls, i: LeadInsight) -> "LeadInsightType":
        return cls(key=i.key, name=i.name, value_type=i.valueType, options=list(i.options), description=i.description)


@strawberry.type(name="LeadSegmentation")
class LeadSegmentationType:
    is_categorization_enabled: bool
    is_followup_enabled: bool
    delay: float = strawberry.field(description="Seconds after a lead's message before classification.")
    model: str | None
    provider: str | None
    trigger_prompt: str | None
    categorization_tool_description: str | None
    categories: list[LeadCategoryType]
    default_followups: list[LeadFollowupType]
    audience_segments: list[LeadInsightType]

    @classmethod
    def from_domain(cls, s: LeadSegmentation) -> "LeadSegmentationType":
        return cls(is_categorization_enabled=s.isCategorizationEnabled, is_followup_enabled=s.isFollowupEnabled,
                   delay=s.delay, model=s.model, provider=s.provider, trigger_prompt=s.triggerPrompt,
                   categorization_tool_description=s.categorizationToolDescription,
                   categories=[LeadCategoryType.from_domain(c) for c in s.categories],
                   default_followups=[LeadFollowupType.from_domain(f) for f in s.defaultFollowups],
                   audience_segments=[LeadInsightType.from_domain(i) for i in s.audienceSegments])


@strawberry.type
class LeadCategoryListMeta:
    total: int
    categorization_enabled: bool


@strawberry.type
class LeadCategoryList:
    data: list[LeadCategoryType]
    meta: LeadCategoryListMeta

    @classmethod
    def from_domain(cls, listing: CategoryList) -> "LeadCategoryList":
        return cls(data=[LeadCategoryType.from_domain(c) for c in listing.categories],
                   meta=LeadCategoryListMeta(total=len(listing.categories),
                                             categorization_enabled=listing.categorization_enabled))


@strawberry.type
class LeadContactsMeta:
    contacts_updated: int = strawberry.field(description="Contacts whose lead_category this write changed.")


@strawberry.type
class LeadCategoryChange:
    data: LeadCategoryType
    meta: LeadContactsMeta

    @classmethod
    def from_domain(cls, change: CategoryChange) -> "LeadCategoryChange":
        return cls(data=LeadCategoryType.from_domain(change.category),
                   meta=LeadContactsMeta(contacts_updated=change.contacts_updated))


@strawberry.type
class LeadCategoryDeleted:
    name: str
    reassigned_to: str | None = strawberry.field(description="The category its contacts moved to; null when "
                                                             "they were cleared or there were none.")
    contacts_updated: int

    @classmethod
    def from_domain(cls, d: CategoryDeleted) -> "LeadCategoryDeleted":
        return cls(name=d.name, reassigned_to=d.reassigned_to, contacts_updated=d.contacts_updated)


@strawberry.type
class LeadCategoryFollowups:
    name: str
    fu_disabled: bool
    followups: list[LeadFollowupType]


@strawberry.type(name="LeadFollowups")
class LeadFollowupsType:
    default: list[LeadFollowupType]
    categories: list[LeadCategoryFollowups]

    @classmethod
    def from_domain(cls, view: FollowupsView) -> "LeadFollowupsType":
        return cls(default=[LeadFollowupType.from_domain(f) for f in view.default],
                   categories=[LeadCategoryFollowups(name=c.name, fu_disabled=c.fuDisabled,
                                                     followups=[LeadFollowupType.from_domain(f) for f in c.followups])
                               for c in view.categories])


@strawberry.type
class LeadInsightList:
    data: list[LeadInsightType]
    meta: ListMeta

    @classmethod
    def from_domain(cls, insights: list[LeadInsight]) -> "LeadInsightList":
        return cls(data=[LeadInsightType.from_domain(i) for i in insights], meta=ListMeta(total=len(insights)))


@strawberry.type
class LeadInsightDeleted:
    key: str
    name: str

    @classmethod
    def from_domain(cls, d: InsightDeleted) -> "LeadInsightDeleted":
        return cls(key=d.key, name=d.name)
