"""Typed keys for what the application keeps on itself."""
from __future__ import annotations

from aiohttp import web

from leadline.config import Settings
from leadline.resolvers.context import Services

SETTINGS = web.AppKey("settings", Settings)
SERVICES = web.AppKey("services", Services)
