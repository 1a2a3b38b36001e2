"""Team inbox: agents, teams, assignment, inbox statuses, live updates: the operations, each declared once."""
from __future__ import annotations

from leadline.schema.operations import Operations

ops = Operations("inbox")
