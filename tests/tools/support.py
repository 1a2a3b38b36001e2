"""Shared by the tools tests: payloads from the published examples, creating tools, a loopback endpoint."""
from __future__ import annotations

import copy
from typing import Any

from aiohttp import web

from leadline.resolvers.tools.definitions import TYPES


def example(tool_type: str, **overrides: Any) -> dict[str, Any]:
    """The type's published example; overrides replace top-level fields (None removes one)."""
    body = copy.deepcopy(TYPES[tool_type].example)
    for key, value in overrides.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return body


async def create(api, key: str, body: dict[str, Any]) -> dict[str, Any]:
    resp = await api.post("/v2.0/tools", key, json=body)
    assert resp.status == 201, resp.body
    return resp.body["data"]


def codes(body: dict[str, Any]) -> dict[str, str]:
    """`details` as {path: code}."""
    return {d["path"]: d["code"] for d in body["details"]}


def function_body(url: str, name: str = "call_api", **overrides: Any) -> dict[str, Any]:
    body = {"name": name, "description": "Calls the test endpoint.", "toolType": "function", "serverUrl": url,
            "requestMethod": "POST", "parameters": {"type": "object", "properties": {}, "required": []}}
    body.update(overrides)
    return body


def params(*names: str) -> dict[str, Any]:
    return {"type": "object", "properties": {n: {"type": "string"} for n in names}, "required": list(names)}


class Endpoint:
    """A small HTTP server on loopback that records each request and answers by path."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.app = web.Application()
        self.app.router.add_route("*", "/slow", self.slow)
        self.app.router.add_route("*", "/fail", self.fail)
        self.app.router.add_route("*", "/text", self.text)
        self.app.router.add_route("*", "/echo-secret", self.echo_secret)
        self.app.router.add_route("*", "/{tail:.*}", self.echo)
        self.server = None

    def url(self, path: str = "") -> str:
        return str(self.server.make_url("/")).rstrip("/") + path

    async def _record(self, request: web.Request) -> dict[str, Any]:
        body = await request.read()
        entry = {"method": request.method, "path": request.path, "query": dict(request.query),
                 "headers": dict(request.headers), "body": body.decode() if body else ""}
        self.requests.append(entry)
        return entry

    async def echo(self, request: web.Request) -> web.Response:
        entry = await self._record(request)
        return web.json_response({"ok": True, "path": entry["path"], "query": entry["query"], "body": entry["body"]})

    async def echo_secret(self, request: web.Request) -> web.Response:
        entry = await self._record(request)
        return web.json_response({"youSent": entry["headers"].get("Authorization")})

    async def slow(self, request: web.Request) -> web.Response:
        await self._record(request)
        import asyncio

        await asyncio.sleep(3)
        return web.json_response({"late": True})

    async def fail(self, request: web.Request) -> web.Response:
        await self._record(request)
        return web.json_response({"error": "nope"}, status=503)

    async def text(self, request: web.Request) -> web.Response:
        await self._record(request)
        return web.Response(text="plain answer")
