"""Campaigns: segments, audiences, bulk personalised sends, reports: the operations, each declared once."""
from __future__ import annotations

from leadline.schema.operations import Operations

ops = Operations("campaigns")
