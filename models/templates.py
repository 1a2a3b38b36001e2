"""Message templates: components stored in the WhatsApp Cloud API shape, plus what a send needs to know.

The messaging send reads a template through `MessageTemplate.find_sendable` and checks its
parameters against `header_variable_count`, `body_variable_count`, `url_button_indexes`,
`header_format` and `requires_otp`.
"""
from __future__ import annotations

import re
from typing import Any, Literal

from beanie import PydanticObjectId
from pymongo import ASCENDING, DESCENDING, IndexModel

from leadline.models.base import OrgRef, TenantDocument

TemplateStatus = Literal["APPROVED", "PENDING", "REJECTED"]
CATEGORIES: tuple[str, ...] = ("MARKETING", "UTILITY", "AUTHENTICATION")
STATUSES: tuple[str, ...] = ("APPROVED", "PENDING", "REJECTED")
MEDIA_FORMATS: tuple[str, ...] = ("IMAGE", "VIDEO", "DOCUMENT")
# Provider states under which an APPROVED template may still not be sent.
UNSENDABLE_PROVIDER_STATUSES: tuple[str, ...] = ("PAUSED", "DISABLED", "PENDING_DELETION", "DELETED", "ARCHIVED")

# A positional variable: `{{1}}`, `{{2}}`, ...
VARIABLE = re.compile(r"\{\{(\d+)\}\}")


def variable_numbers(text: str | None) -> list[int]:
    """The numbers of the `{{n}}` placeholders in `text`, in order of appearance."""
    return [int(n) for n in VARIABLE.findall(text or "")]


class MessageTemplate(TenantDocument):
    name: str
    language: str
    category: str
    status: TemplateStatus = "PENDING"
    # The provider's numeric template id, kept as a digit string (too large for some JSON clients).
    template_id: str | None = None
    # The provider's own status word (APPROVED, REJECTED, PAUSED, FLAGGED, ...), as last reported.
    provider_status: str | None = None
    rejected_reason: str | None = None
    rejection_info: dict[str, Any] | None = None
    quality_score: str = "UNKNOWN"
    components: list[dict[str, Any]] = []
    # The business account (and its number) the template was submitted for.
    channel_id: PydanticObjectId | None = None
    brand_number: str | None = None
    provider: str | None = None
    # Language variants of one name share a group: the id of the first template of that name.
    group_id: PydanticObjectId | None = None
    # DOCUMENT headers: the file name a send uses when it gives none.
    header_filename: str | None = None
    # Provider event times (Unix seconds) of the last review and quality events applied; older
    # (redelivered out of order) events are ignored.
    last_event_time: int = 0
    last_quality_time: int = 0

    class Settings:
        name = "message_templates"
        indexes = [
            IndexModel([("org_id", ASCENDING), ("created_at", DESCENDING)]),
            IndexModel([("org_id", ASCENDING), ("status", ASCENDING), ("category", ASCENDING)]),
            IndexModel([("org_id", ASCENDING), ("category", ASCENDING)]),
            # The sandbox's conditional decision (only while PENDING).
            IndexModel([("_id", ASCENDING), ("org_id", ASCENDING), ("status", ASCENDING)]),
            IndexModel([("org_id", ASCENDING), ("template_id", ASCENDING)]),
            IndexModel([("org_id", ASCENDING), ("name", ASCENDING), ("language", ASCENDING)]),
            # Webhook routing finds templates by provider id across organisations.
            IndexModel([("template_id", ASCENDING)]),
            # Review and quality events apply only when not older than the last one applied.
            IndexModel([("template_id", ASCENDING), ("last_event_time", ASCENDING)]),
            IndexModel([("template_id", ASCENDING), ("last_quality_time", ASCENDING)]),
        ]

    # --- lookups for the messaging send ---------------------------------------------------
    @classmethod
    async def find_sendable(cls, ref: OrgRef, *, template_id: str | None = None, name: str | None = None,
                            language: str = "en", brand_number: str | None = None) -> "MessageTemplate | None":
        """The organisation's APPROVED template by provider id, or by name and language."""
        filt: dict[str, Any] = {"status": "APPROVED"}
        if template_id is not None:
            filt["template_id"] = str(template_id)
        elif name is not None:
            filt.update(name=name, language=language)
        else:
            return None
        if brand_number is not None:
            filt["brand_number"] = brand_number
        candidates = await cls.find_in(ref, filt).sort("-created_at").to_list()
        return next((t for t in candidates if t.provider_status not in UNSENDABLE_PROVIDER_STATUSES), None)

    # --- what the stored components ask of a send -------------------------------------------
    def component(self, kind: str) -> dict[str, Any] | None:
        return next((c for c in self.components if str(c.get("type", "")).upper() == kind), None)

    @property
    def header_format(self) -> str | None:
        """TEXT, IMAGE, VIDEO, DOCUMENT, or None without a header."""
        header = self.component("HEADER")
        return str(header.get("format", "TEXT")).upper() if header else None

    @property
    def requires_media(self) -> bool:
        return self.header_format in MEDIA_FORMATS

    @property
    def requires_otp(self) -> bool:
        return self.category == "AUTHENTICATION"

    @property
    def header_variable_count(self) -> int:
        header = self.component("HEADER")
        if not header or self.header_format != "TEXT":
            return 0
        return len(set(variable_numbers(header.get("text"))))

    @property
    def body_variable_count(self) -> int:
        body = self.component("BODY")
        return len(set(variable_numbers(body.get("text")))) if body else 0

    @property
    def buttons(self) -> list[dict[str, Any]]:
        block = self.component("BUTTONS")
        return list(block.get("buttons", [])) if block else []

    @property
    def url_button_indexes(self) -> list[int]:
        """Indexes (the send's button `index`) of URL buttons whose url takes a `{{1}}` suffix."""
        return [i for i, b in enumerate(self.buttons)
                if str(b.get("type", "")).upper() == "URL" and variable_numbers(b.get("url"))]
