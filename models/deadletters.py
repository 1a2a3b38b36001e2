"""Work that failed for good: a job or a queued stream entry, kept with its error for an operator."""
from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from beanie import Document
from pydantic import Field
from pymongo import DESCENDING, IndexModel

from leadline.models.base import utcnow


class DeadLetter(Document):
    """System-level (not an organisation's): jobs and stream entries of every organisation."""

    kind: Literal["job", "stream"]
    # The job's function, or the stream's name.
    name: str
    # What it takes to run it again: {"args": [...], "kwargs": {...}} for a job, the entry for a stream.
    payload: dict[str, Any] = Field(default_factory=dict)
    error: str
    attempts: int
    created_at: datetime = Field(default_factory=utcnow)
    retried_at: datetime | None = None

    class Settings:
        name = "dead_letters"
        indexes = [IndexModel([("created_at", DESCENDING)])]
