"""Operator commands of the insights domain (`leadline admin ...`), declared with `@command`."""
from __future__ import annotations
