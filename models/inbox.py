"""Team inbox: agents, teams, assignment, inbox statuses, live updates: the Beanie documents."""
from __future__ import annotations

# The documents this domain registers with Beanie (models/__init__.py collects them).
MODELS: list[type] = []
