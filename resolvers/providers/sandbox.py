"""The sandbox adapter: the embedded default, answering like a healthy provider.

Template submissions are accepted with a provider-style numeric id; the review itself is
simulated later (see jobs/templates.py): approved, unless the name starts with `reject_`.
Sends are accepted with a `wamid.` id; the adapter says which statuses will follow (`sent`,
`delivered`, `read`, or `failed` with 131026 for national numbers starting with 999), and
resolvers/messaging/sandbox.py feeds them back through the webhook ingestion path.
"""
from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any

import phonenumbers

from leadline.models.channels import ChannelAccount
from leadline.resolvers.providers.base import (
    LiveStatus,
    MediaUpload,
    OutboundTemplate,
    PhoneNumberInfo,
    SentMessage,
    SimulatedStatus,
    SubmittedTemplate,
    TemplateSubmission,
)

REJECT_PREFIX = "reject_"
SIMULATED_REJECTION_REASON = "INVALID_FORMAT"
UNDELIVERABLE_PREFIX = "999"
# The Cloud API's "Message undeliverable" error.
UNDELIVERABLE_CODE = 131026
DELIVERED = (SimulatedStatus("sent"), SimulatedStatus("delivered"), SimulatedStatus("read"))
UNDELIVERABLE = (SimulatedStatus("failed", UNDELIVERABLE_CODE, "Message undeliverable"),)


def provider_style_id() -> str:
    """A 16-digit id like the Cloud API's template ids (random, so ids never collide across orgs)."""
    return str(10**15 + secrets.randbelow(9 * 10**15))


def provider_message_id() -> str:
    """`wamid.` + base64 of random bytes, the shape of the Cloud API's message ids."""
    return "wamid." + base64.b64encode(b"\x15\x02\x00\x11\x18\x12" + secrets.token_bytes(18)).decode()


def is_undeliverable(to: str) -> bool:
    """A phone number whose national number starts with 999 (BSUIDs are always deliverable)."""
    if not to.isdigit():
        return False
    try:
        national = str(phonenumbers.parse("+" + to).national_number)
    except phonenumbers.NumberParseException:
        return False
    return national.startswith(UNDELIVERABLE_PREFIX)


class SandboxAdapter:
    """Answers like a healthy provider; used when no real provider is configured."""

    name = "sandbox"

    async def check_health(self, account: ChannelAccount) -> LiveStatus:
        if account.platform != "chatapp":
            return LiveStatus("connected")
        return LiveStatus(
            "connected",
            PhoneNumberInfo(account.business_name or account.number, account.phone_quality_rating, "CONNECTED"),
        )

    async def submit_template(self, account: ChannelAccount, template: TemplateSubmission) -> SubmittedTemplate:
        rejected = template.name.startswith(REJECT_PREFIX)
        return SubmittedTemplate(
            provider_template_id=provider_style_id(), status="PENDING", category=template.category,
            simulated_decision="REJECTED" if rejected else "APPROVED",
            simulated_reason=SIMULATED_REJECTION_REASON if rejected else None,
        )

    async def upload_media(self, account: ChannelAccount, media: MediaUpload) -> str:
        digest = hashlib.sha256(media.data).hexdigest()[:24]
        return f"sandbox:{digest}"

    async def send_template(self, account: ChannelAccount, to: str, template: OutboundTemplate) -> SentMessage:
        return self._accept(to)

    async def send_message(self, account: ChannelAccount, to: str, type: str, content: dict[str, Any]) -> SentMessage:
        return self._accept(to)

    @staticmethod
    def _accept(to: str) -> SentMessage:
        return SentMessage(provider_message_id(), UNDELIVERABLE if is_undeliverable(to) else DELIVERED)

    async def close(self) -> None:
        return None
