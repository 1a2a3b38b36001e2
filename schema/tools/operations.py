"""AI tools assistants call: definitions by type, secrets, history, run logs: the operations, each declared once."""
from __future__ import annotations

from leadline.schema.operations import Operations

ops = Operations("tools")
