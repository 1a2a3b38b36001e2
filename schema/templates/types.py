"""Template types and their explicit conversion from models and domain objects."""
from __future__ import annotations

from datetime import datetime

import strawberry

from leadline.models.templates import MessageTemplate
from leadline.resolvers.templates.queries import TemplateDetail, TemplateList
from leadline.schema.scalars import JSON


@strawberry.type
class TemplateGroup:
    id: str = strawberry.field(name="_id")
    name: str


@strawberry.type(name="MessageTemplate")
class MessageTemplateType:
    id: str = strawberry.field(name="_id")
    template_id: str | None
    name: str
    language: str
    category: str
    status: str
    quality_score: str = strawberry.field(name="quality_score")
    rejected_reason: str | None
    components: JSON
    brand_number: str | None
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, t: MessageTemplate) -> "MessageTemplateType":
        return cls(**_template_fields(t))


def _template_fields(t: MessageTemplate) -> dict:
    return dict(id=str(t.id), template_id=t.template_id, name=t.name, language=t.language, category=t.category,
                status=t.status, quality_score=t.quality_score, rejected_reason=t.rejected_reason,
                components=t.components, brand_number=t.brand_number, created_at=t.created_at,
                updated_at=t.updated_at)


@strawberry.type
class MessageTemplateDetail(MessageTemplateType):
    """One template as fetched alone: with its group."""

    group: TemplateGroup | None

    @classmethod
    def from_domain(cls, d: TemplateDetail) -> "MessageTemplateDetail":
        return cls(**_template_fields(d.template), group=TemplateGroup(id=str(d.group_id), name=d.group_name))


@strawberry.type
class TemplateListResult:
    data: list[MessageTemplateType]
    total: int

    @classmethod
    def from_domain(cls, result: TemplateList) -> "TemplateListResult":
        return cls(data=[MessageTemplateType.from_domain(t) for t in result.items], total=result.total)


@strawberry.type
class TemplateCreated:
    template_db_id: str
    template_id: str | None
    name: str
    language: str
    category: str
    status: str

    @classmethod
    def from_domain(cls, t: MessageTemplate) -> "TemplateCreated":
        return cls(template_db_id=str(t.id), template_id=t.template_id, name=t.name, language=t.language,
                   category=t.category, status=t.status)
