"""The sandbox adapter: the embedded default, answering like a healthy provider.

Template submissions are accepted with a provider-style numeric id; the review itself is
simulated later (see jobs/templates.py): approved, unless the name starts with `reject_`.
"""
from __future__ import annotations

import hashlib
import secrets

from models.channels import ChannelAccount
from resolvers.providers.base import (
    LiveStatus,
    MediaUpload,
    PhoneNumberInfo,
    SubmittedTemplate,
    TemplateSubmission,
)

REJECT_PREFIX = "reject_"
SIMULATED_REJECTION_REASON = "INVALID_FORMAT"


def provider_style_id() -> str:
    """A 16-digit id like the Cloud API's template ids (random, so ids never collide across orgs)."""
    return str(10**15 + secrets.randbelow(9 * 10**15))


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

    async def close(self) -> None:
        return None
