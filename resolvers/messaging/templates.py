"""Template sends: the approved template (indexed lookups), its parameters checked against the stored
components, and the Cloud API send components built from them."""
from __future__ import annotations

from typing import Any

from bson import ObjectId

from leadline.models.templates import UNSENDABLE_PROVIDER_STATUSES, VARIABLE, MessageTemplate
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail
from leadline.resolvers.messaging.content import is_http_url
from leadline.resolvers.messaging.requests import TemplateSendRequest
from leadline.resolvers.providers.base import OutboundTemplate

DEFAULT_LANGUAGE = "en"
OTP_MAX = 15  # the Cloud API's one-time-password length cap
# The Cloud API's cap on a body parameter's text; no other text parameter may be longer either.
PARAMETER_MAX = 1024


def template_ref(template: MessageTemplate) -> dict[str, Any]:
    """`{name, id, language}` as responses and schedules report it (`id` is the provider id)."""
    return {"name": template.name, "id": template.template_id or str(template.id), "language": template.language}


def is_sendable(template: MessageTemplate | None) -> bool:
    return (template is not None and template.status == "APPROVED"
            and template.provider_status not in UNSENDABLE_PROVIDER_STATUSES)


async def sendable_template(ctx: RequestContext, req: TemplateSendRequest, brand_number: str) -> MessageTemplate:
    """MISSING_TEMPLATE without a reference; TEMPLATE_NOT_FOUND unless an APPROVED template matches.

    Reads through the (org_id, template_id) and (org_id, name, language) indexes and checks the status
    here: `MessageTemplate.find_sendable` adds `status` to the filter, which no index key starts with.
    """
    template_id = str(req.template_id).strip() if req.template_id not in (None, "") else None
    name = (req.template_name or "").strip() or None
    if template_id is None and name is None:
        raise ApiError("MISSING_TEMPLATE", "Send templateId, or templateName (with language).")
    language = (req.language or "").strip() or DEFAULT_LANGUAGE
    return await ctx.cached(("sendable_template", template_id, name, language, brand_number),
                            lambda: _sendable(ctx, template_id, name, language, brand_number))


async def _sendable(ctx: RequestContext, template_id: str | None, name: str | None, language: str,
                    brand_number: str) -> MessageTemplate:
    if template_id is not None:
        candidates = await MessageTemplate.find_in(ctx, {"template_id": template_id}).to_list()
        if not candidates and ObjectId.is_valid(template_id):
            by_db_id = await MessageTemplate.get_in(ctx, template_id)
            candidates = [by_db_id] if by_db_id else []
    else:
        candidates = await MessageTemplate.find_in(ctx, {"name": name, "language": language}).to_list()
    sendable = [t for t in candidates if is_sendable(t)]
    # A template submitted for this number first, then the organisation's other ones.
    sendable.sort(key=lambda t: (t.brand_number not in (None, brand_number), -t.created_at.timestamp()))
    if not sendable:
        what = f"templateId {template_id}" if template_id else f"template '{name}' ({language})"
        raise ApiError("TEMPLATE_NOT_FOUND", f"No APPROVED {what} in this organisation.")
    return sendable[0]


def _text_values(values: list[str] | None, path: str, problems: list[dict]) -> list[str]:
    out = []
    for i, value in enumerate(values or []):
        text = str(value) if value is not None else ""
        if not text.strip():
            problems.append(detail(f"{path}[{i}]", "REQUIRED", f"{path}[{i}] must not be empty"))
        elif len(text) > PARAMETER_MAX:
            problems.append(detail(f"{path}[{i}]", "TOO_LONG", f"{path}[{i}] is {len(text)} characters; the "
                                                               f"provider accepts at most {PARAMETER_MAX}"))
        out.append(text)
    return out


def _count(values: list[str], expected: int, path: str, problems: list[dict]) -> None:
    if len(values) != expected:
        problems.append(detail(path, "COUNT_MISMATCH",
                               f"the template expects {expected} value(s) in {path}, got {len(values)}"))


def build_outbound(template: MessageTemplate, req: TemplateSendRequest) -> OutboundTemplate:
    """PARAMETER_VALIDATION_ERROR (with every problem in `details`) unless the parameters fit."""
    problems: list[dict] = []
    header = _text_values(req.header_parameters, "headerParameters", problems)
    body = _text_values(req.body_parameters, "bodyParameters", problems)
    buttons = _text_values(req.button_parameters, "buttonParameters", problems)
    _count(header, template.header_variable_count, "headerParameters", problems)
    _count(body, template.body_variable_count, "bodyParameters", problems)
    url_indexes = template.url_button_indexes
    _count(buttons, len(url_indexes), "buttonParameters", problems)

    media_url = (req.media_url or "").strip() or None
    if template.requires_media and media_url is None:
        problems.append(detail("mediaUrl", "REQUIRED",
                               f"the template's {template.header_format} header needs mediaUrl"))
    elif media_url is not None and not template.requires_media:
        problems.append(detail("mediaUrl", "NOT_EXPECTED", "the template has no media header"))
    elif media_url is not None and not is_http_url(media_url):
        problems.append(detail("mediaUrl", "INVALID_VALUE", "mediaUrl must be an http(s) URL"))

    otp = None if req.otp is None or isinstance(req.otp, bool) else str(req.otp).strip()
    if template.requires_otp:
        if not otp:
            problems.append(detail("otp", "REQUIRED", "AUTHENTICATION templates need otp"))
        elif len(otp) > OTP_MAX or not otp.isalnum():
            problems.append(detail("otp", "INVALID_VALUE", f"otp must be 1-{OTP_MAX} letters or digits"))
    if problems:
        raise ApiError("PARAMETER_VALIDATION_ERROR", problems[0]["message"], details=problems)

    components: list[dict[str, Any]] = []
    if template.requires_media:
        kind = template.header_format.lower()
        media: dict[str, Any] = {"link": media_url}
        if kind == "document" and template.header_filename:
            media["filename"] = template.header_filename
        components.append({"type": "header", "parameters": [{"type": kind, kind: media}]})
    elif header:
        components.append({"type": "header", "parameters": [{"type": "text", "text": v} for v in header]})
    if template.requires_otp:
        components.append({"type": "body", "parameters": [{"type": "text", "text": otp}]})
        # The copy-code / one-tap button of an authentication template carries the code too.
        components.append({"type": "button", "sub_type": "url", "index": "0",
                           "parameters": [{"type": "text", "text": otp}]})
    elif body:
        components.append({"type": "body", "parameters": [{"type": "text", "text": v} for v in body]})
    for index, value in zip(url_indexes, buttons):
        components.append({"type": "button", "sub_type": "url", "index": str(index),
                           "parameters": [{"type": "text", "text": value}]})
    return OutboundTemplate(name=template.name, language=template.language, components=components)


def rendered_text(template: MessageTemplate, outbound: OutboundTemplate) -> str | None:
    """The body as the recipient reads it (for history and the conversation's lastMessage)."""
    block = template.component("BODY")
    text = (block or {}).get("text")
    if not text:
        return f"[template {template.name}]"
    values = next((c["parameters"] for c in outbound.components if c["type"] == "body"), [])
    filled = [p.get("text", "") for p in values]
    return VARIABLE.sub(lambda m: filled[int(m.group(1)) - 1] if 0 < int(m.group(1)) <= len(filled)
                        else m.group(0), text)
