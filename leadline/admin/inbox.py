"""Operator commands of the inbox domain (`leadline admin ...`), declared with `@command`."""
from __future__ import annotations
