"""The documented JSON envelopes (spec: Conventions 3 and 4).

Error bodies never echo much of the input: quoted input in messages is cut to 100 characters and
`details` paths to 120 (resolvers/json_limits.py: clip_echoes), whatever code raised them. On /graphql,
a refusal made before GraphQL runs (authentication, rate limits, a malformed body, a batch, a GET
mutation) carries the same fields in a GraphQL `errors` array beside the envelope, so GraphQL clients
and envelope readers both find it.
"""
from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from leadline.resolvers.errors import ApiError
from leadline.resolvers.json_limits import ECHO_MAX, clip, clip_echoes
from leadline.schema.bindings import SUCCESS_MARKER, ErrorMarker

PATH_MAX = ECHO_MAX + 20


def _dumps(body: Any) -> str:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def _json_response(body: Any, status: int, headers: dict[str, str] | None = None) -> web.Response:
    try:
        return web.Response(text=_dumps(body), status=status, content_type="application/json", headers=headers)
    except UnicodeEncodeError:
        # A stored string with an unpaired surrogate (written before bodies were checked) cannot be UTF-8:
        # escape it instead of failing the response.
        return web.Response(text=json.dumps(body, separators=(",", ":")), status=status,
                            content_type="application/json", headers=headers)


def success_response(parts: dict[str, Any], status: int = 200) -> web.Response:
    return _json_response({"success": True, **parts}, status)


def _tame_details(details: Any) -> Any:
    if not isinstance(details, list):
        return details
    tamed = []
    for entry in details:
        if isinstance(entry, dict):
            entry = dict(entry)
            if isinstance(entry.get("path"), str):
                entry["path"] = clip(entry["path"], PATH_MAX)
            if isinstance(entry.get("message"), str):
                entry["message"] = clip_echoes(entry["message"])
        tamed.append(entry)
    return tamed


def error_body(err: ApiError, marker: ErrorMarker = SUCCESS_MARKER) -> dict[str, Any]:
    body: dict[str, Any] = {"error": True} if marker.marker_for(err.code) == "error" else {"success": False}
    body["code"] = err.code
    body["message"] = clip_echoes(err.message)
    if err.details is not None:
        body["details"] = _tame_details(err.details)
    body.update(err.extras)
    return body


def error_response(err: ApiError, marker: ErrorMarker = SUCCESS_MARKER, *, graphql: bool = False) -> web.Response:
    body = error_body(err, marker)
    if graphql:
        extensions = {k: v for k, v in body.items() if k not in ("success", "error", "message")}
        body["errors"] = [{"message": body["message"], "extensions": {**extensions, "status": err.status}}]
    return _json_response(body, err.status, err.headers)
