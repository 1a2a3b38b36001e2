"""Typed keys for what the middlewares and handlers keep on an aiohttp request."""
from __future__ import annotations

from aiohttp import web

from leadline.resolvers.context import RequestContext
from leadline.schema.bindings import ErrorMarker

CTX = web.RequestKey("ctx", RequestContext)
REQUEST_ID = web.RequestKey("request_id", str)
RATE_HEADERS = web.RequestKey("rate_headers", dict)
MARKER = web.RequestKey("marker", ErrorMarker)
