"""One `entry[].changes[]` item of a WhatsApp Cloud API webhook, as every handler receives it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class WebhookChange:
    field: str
    value: dict[str, Any]
    # The entry's id: the WhatsApp Business Account id.
    entry_id: str | None
    # The entry's `time` (Unix seconds); the receive time when the provider gave none.
    time: int
