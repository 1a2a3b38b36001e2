"""Submitting a template for review: account checks, local validation, caps, media, provider, store.

Order: BRAND_NUMBER_MISSING → BIZACCT_NOT_FOUND / BIZACCT_NOT_REVIEWED → every local rule (one
422) → plan limit `max_templates` → submission caps (only now is a slot taken) → media upload →
provider → stored as PENDING. The sandbox's simulated review is scheduled after the insert.
"""
from __future__ import annotations

import logging

from bson import ObjectId

from leadline.models.channels import ChannelAccount
from leadline.models.templates import MessageTemplate
from leadline.resolvers.billing.limits import within_limit
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail
from leadline.resolvers.channels.accounts import active_chat_account
from leadline.resolvers.providers.base import (
    MediaUploadFailed,
    ProviderAdapter,
    ProviderRejected,
    SubmittedTemplate,
    TemplateSubmission,
)
from leadline.resolvers.templates.caps import take_submission_slot
from leadline.resolvers.templates.components import build_components
from leadline.resolvers.templates.media import MediaFetchFailed, fetch_media
from leadline.resolvers.templates.request import HeaderRequest, TemplateRequest
from leadline.resolvers.templates.review import schedule_sandbox_review
from leadline.resolvers.templates.validation import validate

log = logging.getLogger("leadline.templates")


async def business_account(ctx: RequestContext, brand_number: str | None) -> ChannelAccount:
    account = await active_chat_account(ctx, brand_number)
    if account.review_status != "APPROVED":
        raise ApiError("BIZACCT_NOT_REVIEWED",
                       f"The business account {account.number} is {account.review_status}; templates need it APPROVED.")
    return account


async def create_template(ctx: RequestContext, req: TemplateRequest) -> MessageTemplate:
    account = await business_account(ctx, req.brand_number)
    problems = validate(req)
    if not problems:
        problems = await _duplicate(ctx, account, req)
    if problems:
        raise ApiError("TEMPLATE_VALIDATION_FAILED", f"The template has {len(problems)} problem(s); see details.",
                       details=problems)
    adapter = ctx.services.providers.for_account(account)
    category = (req.category or "").upper()
    async with within_limit(ctx, "max_templates"):
        await take_submission_slot(ctx.services, ctx.org_id)
        handle = await _media_handle(ctx, adapter, account, req.header)
        submission = TemplateSubmission(req.name, req.language, category, build_components(req, handle))
        submitted = await _submit(adapter, account, submission)
        template = await _store(ctx, account, adapter.name, submission, submitted, req.header)
    if submitted.simulated_decision:
        await schedule_sandbox_review(ctx.services, template, submitted.simulated_decision,
                                      submitted.simulated_reason)
    return template


async def _duplicate(ctx: RequestContext, account: ChannelAccount, req: TemplateRequest) -> list[dict]:
    """The provider refuses a second template of one name and language; say so before submitting."""
    # (org_id, name, language) is an index's full key; number and status are checked here.
    same = await MessageTemplate.find_in(ctx, {"name": req.name, "language": req.language}).to_list()
    existing = next((t for t in same if t.brand_number == account.number and t.status in ("PENDING", "APPROVED")),
                    None)
    if existing is None:
        return []
    return [detail("name", "DUPLICATE_TEMPLATE",
                   f"a {existing.status} template '{req.name}' in {req.language} already exists for this number")]


async def _media_handle(ctx: RequestContext, adapter: ProviderAdapter, account: ChannelAccount,
                        header: HeaderRequest | None) -> str | None:
    if header is None or not header.media_url:
        return header.media_handle if header else None
    fmt = (header.format or "").upper()
    try:
        media = await fetch_media(ctx.services.settings, header.media_url, fmt, header.filename)
        return await adapter.upload_media(account, media)
    except (MediaFetchFailed, MediaUploadFailed) as exc:
        raise ApiError("MEDIA_UPLOAD_FAILED", f"header.mediaUrl could not be uploaded: {exc}") from None


async def _submit(adapter: ProviderAdapter, account: ChannelAccount,
                  submission: TemplateSubmission) -> SubmittedTemplate:
    try:
        return await adapter.submit_template(account, submission)
    except ProviderRejected as exc:
        raise ApiError("PROVIDER_REJECTED", f"The provider refused the template: {exc.message}", details={
            "providerErrorCode": exc.code,
            "providerErrorSubcode": exc.subcode,
            "providerMessage": exc.message,
            "providerUserTitle": exc.user_title,
            "providerUserMsg": exc.user_msg,
            "providerTraceId": exc.trace_id,
        }) from None


async def _store(ctx: RequestContext, account: ChannelAccount, provider: str, submission: TemplateSubmission,
                 submitted: SubmittedTemplate, header: HeaderRequest | None) -> MessageTemplate:
    sibling = await MessageTemplate.find_one_in(ctx, {"name": submission.name})
    template_db_id = ObjectId()
    template = MessageTemplate.new(
        ctx, id=template_db_id, name=submission.name, language=submission.language,
        category=submitted.category.upper() if submitted.category else submission.category,
        status="PENDING", provider_status=submitted.status, template_id=submitted.provider_template_id,
        components=submission.components, channel_id=account.id, brand_number=account.number,
        provider=provider, group_id=(sibling.group_id or sibling.id) if sibling else template_db_id,
        header_filename=header.filename if header and (header.format or "").upper() == "DOCUMENT" else None,
    )
    try:
        await template.insert()
    except Exception:
        log.error("template %s accepted by the provider as %s but not stored", submission.name,
                  submitted.provider_template_id)
        raise
    return template
