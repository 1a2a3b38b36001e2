"""Lead segmentation (AI lead studio): one configuration per organisation: the operations, each declared once."""
from __future__ import annotations

from leadline.schema.operations import Operations

ops = Operations("leads")
