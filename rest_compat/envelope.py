"""The documented JSON envelopes (spec: Conventions 3 and 4)."""
from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from leadline.resolvers.errors import ApiError
from leadline.schema.bindings import SUCCESS_MARKER, ErrorMarker


def _dumps(body: Any) -> str:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def success_response(parts: dict[str, Any], status: int = 200) -> web.Response:
    return web.Response(text=_dumps({"success": True, **parts}), status=status, content_type="application/json")


def error_body(err: ApiError, marker: ErrorMarker = SUCCESS_MARKER) -> dict[str, Any]:
    body: dict[str, Any] = {"error": True} if marker.marker_for(err.code) == "error" else {"success": False}
    body["code"] = err.code
    body["message"] = err.message
    if err.details is not None:
        body["details"] = err.details
    body.update(err.extras)
    return body


def error_response(err: ApiError, marker: ErrorMarker = SUCCESS_MARKER) -> web.Response:
    return web.Response(text=_dumps(error_body(err, marker)), status=err.status, content_type="application/json",
                        headers=err.headers)
