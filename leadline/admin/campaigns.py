"""Operator commands of the campaigns domain (`leadline admin ...`), declared with `@command`."""
from __future__ import annotations
