"""Templates root fields: thin calls into resolvers.templates."""
from __future__ import annotations

import strawberry
from strawberry.types import Info

from leadline.resolvers.templates import create, queries
from leadline.schema.permissions import needs
from leadline.schema.templates.inputs import CreateTemplateInput
from leadline.schema.templates.types import MessageTemplateType, TemplateCreated, TemplateListResult


@strawberry.type
class TemplatesQuery:
    @strawberry.field(permission_classes=needs("templates:read"), description="Templates, newest first.")
    async def templates(self, info: Info, status: str | None = None, category: str | None = None) -> TemplateListResult:
        return TemplateListResult.from_domain(await queries.list_templates(info.context, status, category))

    @strawberry.field(permission_classes=needs("templates:read"),
                      description="One template by 24-hex _id or numeric provider templateId.")
    async def template(self, info: Info, id: str) -> MessageTemplateType:
        return MessageTemplateType.from_detail(await queries.get_template(info.context, id))


@strawberry.type
class TemplatesMutation:
    @strawberry.mutation(permission_classes=needs("templates:write"), description="Submit a template for review.")
    async def create_template(self, info: Info, input: CreateTemplateInput) -> TemplateCreated:
        return TemplateCreated.from_model(await create.create_template(info.context, input.to_request()))
