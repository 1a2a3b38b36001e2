"""The one domain error type and the catalogue of error codes with their HTTP status.

Every layer raises `ApiError`; GraphQL puts the same fields in `extensions`, REST turns them
into the documented envelope. The catalogue is the spec's Errors table plus the few codes
this service adds for malformed requests (see docs/errors.md).
"""
from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Any, Iterator

# code -> HTTP status. Spec codes first, then the service's own envelope-level codes.
ERROR_STATUS: dict[str, int] = {
    # Auth
    "API_KEY_MISSING": 401,
    "INVALID_API_KEY": 401,
    "INSUFFICIENT_SCOPE": 403,
    "AUTHENTICATION_FAILED": 500,
    "ORG_INACTIVE": 403,
    "DOMAIN_NOT_WHITELISTED": 403,
    "ORG_ID_MISSING": 400,
    "ORG_ID_REQUIRED": 400,
    # Rate
    "RATE_LIMIT_EXCEEDED_PER_SECOND": 429,
    "RATE_LIMIT_EXCEEDED_PER_DAY": 429,
    # Plan
    "LIMIT_EXCEEDED": 403,
    "FEATURE_NOT_ENABLED": 403,
    "PLAN_FEATURE_DISABLED": 403,
    "PLAN_LIMIT_EXCEEDED": 403,
    # Messaging
    "BRAND_NUMBER_MISSING": 400,
    "BIZACCT_NOT_FOUND": 404,
    "BIZACCT_RETRIEVAL_FAILED": 500,
    "MISSING_RECIPIENT": 400,
    "INVALID_PHONE_NUMBER": 400,
    "MISSING_TEMPLATE": 400,
    "TEMPLATE_NOT_FOUND": 404,
    "PARAMETER_VALIDATION_ERROR": 400,
    "INVALID_SCHEDULE_TIME": 400,
    "PROVIDER_API_ERROR": 502,
    "MESSAGE_SEND_FAILED": 500,
    "MISSING_CONTENT": 400,
    "MISSING_TEXT_BODY": 400,
    "MISSING_MEDIA_LINK": 400,
    "MESSAGE_NOT_FOUND": 404,
    "STATUS_FETCH_FAILED": 500,
    "SCHEDULE_NOT_CANCELLABLE": 400,
    # Messaging codes this service adds (docs/messaging.md)
    "SERVICE_WINDOW_CLOSED": 409,
    "CONTACT_OPTED_OUT": 409,
    "MESSAGING_LIMIT_REACHED": 429,
    "SCHEDULE_NOT_FOUND": 404,
    # Contacts, fields, tags
    "MISSING_PHONE": 400,
    "INVALID_CUSTOM_FIELDS": 400,
    "CONTACT_NOT_FOUND": 404,
    "CONTACT_ALREADY_EXISTS": 409,
    "INVALID_FIELD_TYPE_FILTER": 400,
    "MISSING_FIELD_NAME": 400,
    "INVALID_FIELD_TYPE": 400,
    "MISSING_DROPDOWN_OPTIONS": 400,
    "INVALID_FIELD_KEY": 400,
    "INVALID_FIELD_ID": 400,
    "CUSTOM_FIELD_NOT_FOUND": 404,
    "CUSTOM_FIELD_ALREADY_EXISTS": 409,
    "MISSING_TAG_NAME": 400,
    "INVALID_TAG_ID": 400,
    "TAG_NOT_FOUND": 404,
    "TAG_ALREADY_EXISTS": 409,
    # Wallet, channels
    "WALLET_NOT_FOUND": 404,
    "INVALID_CHANNEL": 400,
    "NO_CHANNELS_FOUND": 404,
    # Templates
    "TEMPLATE_VALIDATION_FAILED": 422,
    "TEMPLATE_RATE_LIMITED": 429,
    "BIZACCT_NOT_REVIEWED": 409,
    "PROVIDER_REJECTED": 502,
    "MEDIA_UPLOAD_FAILED": 502,
    "TEMPLATE_CREATE_FAILED": 500,
    "FAILED_TO_FETCH_TEMPLATES": 500,
    "INVALID_TEMPLATE_ID": 400,
    # Campaigns
    "CAMPAIGN_AUDIENCE_INVALID": 400,
    "CAMPAIGN_EMPTY_AUDIENCE": 400,
    "CAMPAIGN_VARIABLES_INVALID": 422,
    "CAMPAIGN_NAME_REQUIRED": 400,
    "CAMPAIGN_TEMPLATE_REQUIRED": 400,
    "CAMPAIGN_TEMPLATE_NOT_APPROVED": 409,
    "INVALID_CAMPAIGN_STATUS": 400,
    "CAMPAIGN_NOT_FOUND": 404,
    "CAMPAIGN_NOT_CANCELLABLE": 409,
    "CAMPAIGN_CANCEL_FAILED": 500,
    "CAMPAIGN_PREVIEW_FAILED": 500,
    "CAMPAIGN_CREATE_FAILED": 500,
    "CAMPAIGN_LIST_FAILED": 500,
    "CAMPAIGN_REPORT_FAILED": 500,
    # Assistants (BIZACCT_NOT_FOUND is 409 there: raise it with status=409)
    "ASSISTANT_VALIDATION_FAILED": 422,
    "MODEL_INVALID_FOR_PROVIDER": 422,
    "PHOTOAPP_NOT_CONNECTED": 409,
    "PAGEAPP_NOT_CONNECTED": 409,
    "PLATFORM_INVALID": 400,
    "ASSISTANT_NOT_FOUND": 404,
    "IS_ACTIVE_REQUIRED": 400,
    "VERSION_REQUIRED": 400,
    "HISTORY_VERSION_NOT_FOUND": 404,
    "VERSION_NOT_RESTORABLE": 400,
    # Tools
    "TOOL_VALIDATION_FAILED": 422,
    "TOOL_NAME_EXISTS": 409,
    "TOOL_TYPE_IMMUTABLE": 400,
    "EXTRA_MESSAGES_MAX": 422,
    "COMPONENTS_TYPE_REQUIRED": 422,
    "COMPONENTS_TYPE_MISMATCH": 422,
    # Chats
    "IDENTIFIER_REQUIRED": 400,
    "INVALID_BEFORE": 400,
    "CHAT_HISTORY_FAILED": 500,
    "CONVERSATIONS_LIST_FAILED": 500,
    # Insights
    "INVALID_DATE_RANGE": 400,
    "DAILY_SUMMARY_FAILED": 500,
    "PIPELINE_SNAPSHOTS_FAILED": 500,
    # Billing
    "PLAN_FETCH_FAILED": 500,
    "SUBSCRIPTIONS_FAILED": 500,
    "PAYMENTS_FAILED": 500,
    # Leads
    "CATEGORY_EXISTS": 409,
    "CATEGORY_IN_USE": 409,
    "INVALID_VALUE_TYPE": 400,
    "INSIGHT_EXISTS": 409,
    # Inbox
    "NO_AVAILABLE_AGENT": 409,
    "UNKNOWN_STATUS": 400,
    "NO_CHATAPP_CHANNEL": 400,
    "CHANNEL_AMBIGUOUS": 400,
    "TEAM_REQUIRED": 400,
    # Codes the spec implies for its routes (docs/errors.md), by group; a domain adds its own here.
    # Campaigns
    "SEGMENT_NOT_FOUND": 404,
    # Assistants and tools
    "TOOL_NOT_FOUND": 404,
    "TOOL_TAG_NOT_FOUND": 404,
    "TOOL_TAG_EXISTS": 409,
    # Leads
    "CATEGORY_NOT_FOUND": 404,
    "INSIGHT_NOT_FOUND": 404,
    # Inbox
    "CONVERSATION_NOT_FOUND": 404,
    "AGENT_NOT_FOUND": 404,
    "TEAM_NOT_FOUND": 404,
    "AGENT_NOT_IN_TEAM": 400,
    "AGENT_NOT_ACTIVE": 409,
    "TEAM_INACTIVE": 409,
    "STATUS_EXISTS": 409,
    "SYSTEM_STATUS_NOT_DELETABLE": 409,
    # Outgoing events (docs/events.md)
    "WEBHOOK_URL_INVALID": 400,
    "WEBHOOK_ENDPOINT_LIMIT_REACHED": 409,
    "WEBHOOK_ENDPOINT_NOT_FOUND": 404,
    "WEBHOOK_ENDPOINT_INACTIVE": 409,
    "WEBHOOK_DELIVERY_NOT_FOUND": 404,
    # Generic
    "INTERNAL_SERVER_ERROR": 500,
    # Service-level codes for malformed requests (not in the spec's table; docs/errors.md)
    "VALIDATION_ERROR": 400,
    "INVALID_JSON": 400,
    "INVALID_BODY": 400,
    "UNSUPPORTED_MEDIA_TYPE": 415,
    "NOT_FOUND": 404,
    "METHOD_NOT_ALLOWED": 405,
    "PAYLOAD_TOO_LARGE": 413,
    "URI_TOO_LONG": 414,
    "HEADERS_TOO_LARGE": 431,
    # Idempotency-Key (docs/idempotency.md)
    "IDEMPOTENCY_KEY_REUSED": 422,
    "IDEMPOTENCY_KEY_IN_USE": 409,
}

# Codes some operation raises with another status than the catalogue's (ApiError(..., status=N)); the
# OpenAPI document lists both.
ERROR_STATUS_ALSO: dict[str, tuple[int, ...]] = {
    "BIZACCT_NOT_FOUND": (409,),  # assistants: activation without an active business account
}

# Fields an error may carry next to code/message/details, in envelope and extensions alike.
EXTRA_FIELDS = ("required_scope", "limitKey", "current", "limit", "retryAfter")


class ApiError(Exception):
    """A refusal the caller can act on: spec code, HTTP status, message, details, extras."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: int | None = None,
        details: list[dict[str, Any]] | dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        **extras: Any,
    ) -> None:
        super().__init__(message)
        if status is None and code not in ERROR_STATUS:
            raise ValueError(f"unknown error code {code!r}: add it to ERROR_STATUS")
        self.code = code
        self.message = message
        self.status = status if status is not None else ERROR_STATUS[code]
        self.details = details
        self.headers = headers or {}
        unknown = set(extras) - set(EXTRA_FIELDS)
        if unknown:
            raise ValueError(f"unknown error extras {sorted(unknown)}")
        self.extras = extras

    @property
    def extensions(self) -> dict[str, Any]:
        """What GraphQL reports in `errors[].extensions` (graphql-core copies this attribute)."""
        ext: dict[str, Any] = {"code": self.code, "status": self.status}
        if self.details is not None:
            ext["details"] = self.details
        ext.update(self.extras)
        return ext

    @classmethod
    def from_extensions(cls, message: str, ext: dict[str, Any]) -> "ApiError":
        extras = {k: ext[k] for k in EXTRA_FIELDS if k in ext}
        return cls(ext["code"], message, status=ext.get("status"), details=ext.get("details"), **extras)

    def __repr__(self) -> str:
        return f"ApiError({self.code!r}, {self.message!r}, status={self.status})"


def detail(path: str, code: str, message: str) -> dict[str, str]:
    """One entry of a `details[]` array."""
    return {"path": path, "code": code, "message": message}


def validation_error(details: list[dict[str, Any]], message: str | None = None) -> ApiError:
    return ApiError("VALIDATION_ERROR", message or details[0]["message"], details=details)


def internal_error(code: str = "INTERNAL_SERVER_ERROR") -> ApiError:
    return ApiError(code, "An unexpected error occurred; it has been logged.", status=ERROR_STATUS.get(code, 500))


@contextmanager
def internal_as(code: str) -> Iterator[None]:
    """Inside, an unexpected exception is logged and becomes the group's internal code (e.g.
    FAILED_TO_FETCH_TEMPLATES, CHAT_HISTORY_FAILED) with no internals; ApiErrors pass through."""
    try:
        yield
    except ApiError:
        raise
    except Exception:
        logging.getLogger("leadline.errors").exception("unexpected error (%s)", code)
        raise internal_error(code) from None
