"""Campaign and segment inputs: every field optional where the spec has its own "missing X" code."""
from __future__ import annotations

from typing import Any

import strawberry

from leadline.resolvers.campaigns.create import CampaignRequest
from leadline.schema.scalars import JSON


@strawberry.input
class CampaignFiltersInput:
    source: str | None = None
    has_email: bool | None = None
    opted_out: bool | None = None
    ignore_undeliverable_contacts: bool | None = None
    advanced_filters: JSON | None = strawberry.field(default=None, description="Rules as POST /v2.0/contacts/filter takes.")


@strawberry.input
class CampaignContactInput:
    phone: str | None = None
    name: str | None = None
    email: str | None = None
    custom: JSON | None = None
    variables: JSON | None = None


@strawberry.input
class CampaignAudienceInput:
    segment_ids: list[str] | None = None
    exclude_segment_ids: list[str] | None = None
    tags: list[str] | None = None
    exclude_tags: list[str] | None = None
    filters: CampaignFiltersInput | None = None
    contacts: list[CampaignContactInput] | None = None
    ignore_undeliverable: bool | None = None

    def to_domain(self) -> dict[str, Any]:
        filters = self.filters
        return {"segmentIds": self.segment_ids, "excludeSegmentIds": self.exclude_segment_ids, "tags": self.tags,
                "excludeTags": self.exclude_tags, "ignoreUndeliverable": self.ignore_undeliverable,
                "filters": {"source": filters.source, "hasEmail": filters.has_email, "optedOut": filters.opted_out,
                            "ignoreUndeliverableContacts": filters.ignore_undeliverable_contacts,
                            "advancedFilters": filters.advanced_filters} if filters else {},
                "contacts": None if self.contacts is None else [
                    {"phone": c.phone, "name": c.name, "email": c.email, "custom": c.custom, "variables": c.variables}
                    for c in self.contacts]}


@strawberry.input
class CampaignPreviewInput:
    brand_number: str | None = None
    audience: CampaignAudienceInput | None = None


@strawberry.input
class CampaignScheduleInput:
    send_at: str | None = None
    timezone: str | None = None


@strawberry.input
class CreateCampaignInput:
    brand_number: str | None = None
    campaign_name: str | None = None
    template_id: str | None = None
    template_name: str | None = None
    language: str | None = None
    audience: CampaignAudienceInput | None = None
    variables: JSON | None = None
    schedule: CampaignScheduleInput | None = None
    notes: str | None = None
    dry_run: bool | None = None
    validate_only: bool | None = strawberry.field(default=None, description="The same as dryRun.")

    def to_domain(self) -> CampaignRequest:
        schedule = {"sendAt": self.schedule.send_at, "timezone": self.schedule.timezone} if self.schedule else None
        return CampaignRequest(brand_number=self.brand_number, campaign_name=self.campaign_name,
                               template_id=self.template_id, template_name=self.template_name, language=self.language,
                               audience=self.audience.to_domain() if self.audience else None, variables=self.variables,
                               schedule=schedule, notes=self.notes, dry_run=bool(self.dry_run or self.validate_only))


@strawberry.input
class SegmentInput:
    name: str | None = None
    filter: JSON | None = None
    is_active: bool | None = None
