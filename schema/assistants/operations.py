"""AI assistants: configuration, channel binding, version history (issue: assistants and tools): the operations, each declared once."""
from __future__ import annotations

from leadline.schema.operations import Operations

ops = Operations("assistants")
