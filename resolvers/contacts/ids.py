"""Path and body ids: 24-hex strings, refused with the route group's own INVALID_*_ID code."""
from __future__ import annotations

from bson import ObjectId

from leadline.resolvers.errors import ApiError


def object_id(value: str | None, code: str, what: str) -> ObjectId:
    if not isinstance(value, str) or len(value) != 24 or not ObjectId.is_valid(value):
        raise ApiError(code, f"{what} must be a 24-character hexadecimal id (got {value!r}).")
    return ObjectId(value)
