"""AI tools assistants call: definitions by type, secrets, history, run logs: the Beanie documents."""
from __future__ import annotations

# The documents this domain registers with Beanie (models/__init__.py collects them).
MODELS: list[type] = []
