"""Insights: daily AI rollups and lead-pipeline snapshots: the operations, each declared once."""
from __future__ import annotations

from leadline.schema.operations import Operations

ops = Operations("insights")
