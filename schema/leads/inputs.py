"""Lead segmentation input types: every field optional, so the domain code gives its own precise refusal."""
from __future__ import annotations

import strawberry

from leadline.resolvers.leads.writes import (CategoryWrite, FollowupWrite, InsightWrite, SegmentationWrite,
                                             SettingsWrite)


@strawberry.input
class LeadFollowupInput:
    delay: float | None = strawberry.field(default=None, description="Seconds from classification, at least 0.")
    prompt: str | None = None
    active: bool | None = strawberry.field(default=None, description="Default true.")

    def to_domain(self) -> FollowupWrite:
        return FollowupWrite(delay=self.delay, prompt=self.prompt, active=self.active)


def _followups(items: list[LeadFollowupInput] | None) -> list[FollowupWrite] | None:
    return None if items is None else [f.to_domain() for f in items]


@strawberry.input
class LeadCategoryInput:
    name: str | None = None
    description: str | None = None
    fu_disabled: bool | None = None
    followups: list[LeadFollowupInput] | None = None

    def to_domain(self) -> CategoryWrite:
        return CategoryWrite(name=self.name, description=self.description, fuDisabled=self.fu_disabled,
                             followups=_followups(self.followups))


@strawberry.input
class LeadCategoryUpdateInput:
    name: str | None = strawberry.field(default=None, description="A new name: contacts in the category follow it.")
    description: str | None = None
    fu_disabled: bool | None = None

    def to_domain(self) -> CategoryWrite:
        return CategoryWrite(name=self.name, description=self.description, fuDisabled=self.fu_disabled)


@strawberry.input
class LeadFollowupsInput:
    followups: list[LeadFollowupInput] | None = strawberry.field(default=None, description="Replaces the set.")

    def to_domain(self) -> list[FollowupWrite] | None:
        return _followups(self.followups)


@strawberry.input
class LeadInsightInput:
    key: str | None = None
    name: str | None = None
    value_type: str | None = strawberry.field(default=None, description="text (default), number, array or date.")
    options: list[str] | None = None
    description: str | None = None

    def to_domain(self) -> InsightWrite:
        return InsightWrite(key=self.key, name=self.name, valueType=self.value_type, options=self.options,
                            description=self.description)


@strawberry.input
class LeadInsightUpdateInput(LeadInsightInput):
    key: str | None = strawberry.field(default=None, description="Immutable: any key sent is refused.")
    value_type: str | None = None


@strawberry.input
class LeadSettingsInput:
    is_categorization_enabled: bool | None = None
    is_followup_enabled: bool | None = None
    delay: float | None = strawberry.field(default=None, description="Seconds after a lead's message before "
                                                                     "classification (0 to 86400).")
    model: str | None = None
    provider: str | None = None
    trigger_prompt: str | None = None
    categorization_tool_description: str | None = None

    def to_domain(self) -> SettingsWrite:
        return SettingsWrite(isCategorizationEnabled=self.is_categorization_enabled,
                             isFollowupEnabled=self.is_followup_enabled, delay=self.delay, model=self.model,
                             provider=self.provider, triggerPrompt=self.trigger_prompt,
                             categorizationToolDescription=self.categorization_tool_description)


@strawberry.input
class LeadSegmentationInput(LeadSettingsInput):
    categories: list[LeadCategoryInput] | None = None
    default_followups: list[LeadFollowupInput] | None = None
    audience_segments: list[LeadInsightInput] | None = None

    def to_domain(self) -> SegmentationWrite:  # type: ignore[override]
        return SegmentationWrite(settings=LeadSettingsInput.to_domain(self),
                                 categories=None if self.categories is None else [c.to_domain() for c in self.categories],
                                 defaultFollowups=_followups(self.default_followups),
                                 audienceSegments=None if self.audience_segments is None
                                 else [i.to_domain() for i in self.audience_segments])
