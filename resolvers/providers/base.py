"""What every provider adapter offers, the values it reports, and the registry that picks one.

An adapter speaks to one messaging provider on behalf of one channel account.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from leadline.models.channels import ChannelAccount

LIVE_STATUSES = ("connected", "token_expired", "permission_denied", "not_configured", "missing_credentials",
                 "error", "unknown")


@dataclass(frozen=True)
class PhoneNumberInfo:
    verified_name: str | None
    quality_rating: str | None
    status: str | None


@dataclass(frozen=True)
class ProviderErrorInfo:
    http_status: int | None
    provider_error_code: int | None
    provider_error_subcode: int | None
    message: str


@dataclass(frozen=True)
class LiveStatus:
    live_status: str
    phone_number: PhoneNumberInfo | None = None
    phone_number_error: ProviderErrorInfo | None = None


@dataclass(frozen=True)
class TemplateSubmission:
    """A template as the provider receives it: components already in the Cloud API shape."""

    name: str
    language: str
    category: str
    components: list[dict[str, Any]]


@dataclass(frozen=True)
class SubmittedTemplate:
    provider_template_id: str
    status: str
    category: str
    # Only the sandbox says in advance what its simulated review will decide (and why).
    simulated_decision: str | None = None
    simulated_reason: str | None = None


@dataclass(frozen=True)
class MediaUpload:
    data: bytes
    mime_type: str
    filename: str


@dataclass(frozen=True)
class OutboundTemplate:
    """A template send as the provider receives it: `components` already in the Cloud API send shape
    (`[{type: header|body|button, parameters: [...]}]`)."""

    name: str
    language: str
    components: list[dict[str, Any]]


@dataclass(frozen=True)
class SimulatedStatus:
    """A delivery status the sandbox will report later through the webhook path (delays: settings)."""

    status: str  # sent, delivered, read, failed
    error_code: int | None = None
    error_title: str | None = None


@dataclass(frozen=True)
class SentMessage:
    """The provider accepted a send: its message id (`wamid...`)."""

    provider_message_id: str
    # Only the sandbox says in advance which statuses it will report (resolvers/messaging/sandbox.py).
    simulated: tuple[SimulatedStatus, ...] = ()


class ProviderRejected(Exception):
    """The provider refused a request; the fields are the Graph API error's, as reported."""

    def __init__(self, message: str, *, http_status: int | None = None, code: int | None = None,
                 subcode: int | None = None, user_title: str | None = None, user_msg: str | None = None,
                 trace_id: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.http_status = http_status
        self.code = code
        self.subcode = subcode
        self.user_title = user_title
        self.user_msg = user_msg
        self.trace_id = trace_id


class MediaUploadFailed(Exception):
    """Uploading media to the provider failed; the message says why."""


class ProviderAdapter(Protocol):
    name: str

    async def check_health(self, account: ChannelAccount) -> LiveStatus: ...

    async def submit_template(self, account: ChannelAccount, template: TemplateSubmission) -> SubmittedTemplate:
        """Submit for review; raises ProviderRejected."""
        ...

    async def upload_media(self, account: ChannelAccount, media: MediaUpload) -> str:
        """Upload a template's sample media; returns the provider's handle. Raises MediaUploadFailed."""
        ...


    async def send_template(self, account: ChannelAccount, to: str, template: OutboundTemplate) -> SentMessage:
        """Send an approved template to a phone number or BSUID (forwarded unchanged). Raises ProviderRejected."""
        ...

    async def send_message(self, account: ChannelAccount, to: str, type: str, content: dict[str, Any]) -> SentMessage:
        """Send a freeform message; `type` is text/image/document/audio/video and `content` the Cloud API object
        of that type (`{body}` for text, `{link, caption?, filename?}` for media). Raises ProviderRejected."""
        ...


class ProviderRegistry:
    """Picks the adapter of an account: its own `provider`, else the service default."""

    def __init__(self, default: str, adapters: dict[str, ProviderAdapter]) -> None:
        if default not in adapters:
            raise ValueError(f"unknown provider '{default}' (known: {', '.join(adapters)})")
        self.default = default
        self.adapters = adapters

    def for_account(self, account: ChannelAccount) -> ProviderAdapter:
        return self.adapters.get(account.provider or self.default) or self.adapters[self.default]

    async def close(self) -> None:
        for adapter in self.adapters.values():
            close = getattr(adapter, "close", None)
            if close is not None:
                await close()
