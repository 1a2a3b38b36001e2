"""Every event kind is documented with its payload in docs/events.md."""
from __future__ import annotations

import re
from pathlib import Path

from leadline.resolvers.events import EVENT_KINDS

DOC = Path(__file__).resolve().parents[2] / "docs" / "events.md"


def test_every_kind_has_its_payload_documented():
    documented = set(re.findall(r"^### `([a-z_.]+)`$", DOC.read_text(), flags=re.MULTILINE))
    assert documented == set(EVENT_KINDS)
    assert {"campaign.completed", "contact.updated"} <= EVENT_KINDS
