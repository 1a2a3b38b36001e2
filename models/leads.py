"""Lead segmentation (AI lead studio): one configuration document per organisation (docs/leads.md).

Settings, categories (each with its follow-ups), the default follow-ups and the insights (audience
segments) live in one document, so every write is one conditional replacement of it: a write reads
the document, builds the new state, and stores it only if `version` is still the one it read.
"""
from __future__ import annotations

from pydantic import BaseModel, Field
from pymongo import ASCENDING, IndexModel

from leadline.models.base import TenantDocument

DEFAULT_DELAY = 60
VALUE_TYPES = ("text", "number", "array", "date")


class LeadFollowup(BaseModel):
    delay: float
    prompt: str
    active: bool = True


class LeadCategory(BaseModel):
    name: str
    description: str = ""
    fuDisabled: bool = False
    followups: list[LeadFollowup] = Field(default_factory=list)

    @property
    def name_key(self) -> str:
        return self.name.lower()


class LeadInsight(BaseModel):
    """An audience segment: what the AI extracts into a contact's `lead_segments[key]`."""

    key: str
    name: str
    valueType: str = "text"
    options: list[str] = Field(default_factory=list)
    description: str = ""


class LeadSegmentation(TenantDocument):
    isCategorizationEnabled: bool = False
    isFollowupEnabled: bool = False
    delay: float = DEFAULT_DELAY
    model: str | None = None
    provider: str | None = None
    triggerPrompt: str | None = None
    categorizationToolDescription: str | None = None
    categories: list[LeadCategory] = Field(default_factory=list)
    defaultFollowups: list[LeadFollowup] = Field(default_factory=list)
    audienceSegments: list[LeadInsight] = Field(default_factory=list)
    # Bumped by every write; writes are conditional on the version they read (no lost update).
    version: int = 0

    class Settings:
        name = "lead_segmentation"
        indexes = [IndexModel([("org_id", ASCENDING)], unique=True),
                   # The conditional write filters on {org_id, version} (one document per organisation).
                   IndexModel([("org_id", ASCENDING), ("version", ASCENDING)])]


# The documents this domain registers with Beanie (models/__init__.py collects them).
MODELS: list[type] = [LeadSegmentation]
