"""Test helpers: organisations and keys made through the real admin code, and a small HTTP wrapper."""
from __future__ import annotations

from leadline.app_keys import SERVICES

import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Any

from pymongo import monitoring
from redis.asyncio.connection import AbstractConnection

from leadline.resolvers.auth import admin


@dataclass
class Response:
    status: int
    body: Any
    headers: Any


@dataclass
class Tenant:
    org_id: str
    legacy_key: str
    client: Any

    async def key(self, scopes: str, label: str | None = None) -> str:
        return (await admin.create_key(self.org_id, scopes, label))["key"]

    @property
    def services(self):
        return self.client.app[SERVICES]

    async def set_plan(self, plan: str) -> None:
        s = self.services
        await admin.set_plan(s.redis, s.settings.redis_prefix, self.org_id, plan)


async def make_tenant(client, plan: str = "business", name: str = "Acme") -> Tenant:
    created = await admin.create_org(name, plan=plan)
    return Tenant(created["orgId"], created["legacyKey"], client)


class Api:
    """`await api.get('/v2.0/...', key)` → Response(status, parsed JSON, headers)."""

    def __init__(self, client) -> None:
        self.client = client

    async def call(self, method: str, path: str, key: str | None = None, *, json: Any = None,
                   params: dict | None = None, headers: dict | None = None, data: Any = None) -> Response:
        hdrs = dict(headers or {})
        if key is not None:
            hdrs["Authorization"] = f"Bearer {key}"
        async with self.client.request(method, path, json=json, params=params, headers=hdrs, data=data) as resp:
            text = await resp.text()
            try:
                import json as _json

                body = _json.loads(text) if text else None
            except ValueError:
                body = text
            return Response(resp.status, body, resp.headers)

    async def get(self, path: str, key: str | None = None, **kw) -> Response:
        return await self.call("GET", path, key, **kw)

    async def post(self, path: str, key: str | None = None, **kw) -> Response:
        return await self.call("POST", path, key, **kw)

    async def graphql(self, query: str, key: str | None = None, variables: dict | None = None) -> Response:
        return await self.call("POST", "/graphql", key, json={"query": query, "variables": variables or {}})


def assert_error(resp: Response, status: int, code: str, marker: str = "success") -> dict:
    """Status, marker and code of a documented error envelope."""
    assert resp.status == status, (resp.status, resp.body)
    body = resp.body
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"]
    if marker == "error":
        assert body.get("error") is True and "success" not in body, body
    else:
        assert body.get("success") is False and "error" not in body, body
    return body


async def winning_plan(model, filter: dict, sort: list | None = None) -> str:
    """SecantusDB's winning plan for a find on `model`'s collection, as text (look for IXSCAN/COLLSCAN)."""
    coll = model.get_pymongo_collection()
    cmd = {"find": coll.name, "filter": filter}
    if sort:
        cmd["sort"] = dict(sort)
    explain = await coll.database.command({"explain": cmd})
    return str(explain["queryPlanner"]["winningPlan"])


class RoundTrips:
    """Counts the database commands (pymongo command monitoring) and Redis round trips (packets sent by
    redis-py's asyncio connections) made inside `with RoundTrips() as trips:` in this process."""

    _listener = None

    def __init__(self) -> None:
        self.db: Counter = Counter()
        self.redis = 0

    @classmethod
    def install(cls) -> None:
        """Registers the command listener; clients created afterwards report to it (call at import)."""
        if cls._listener is None:
            cls._listener = _CommandLog()
            monitoring.register(cls._listener)

    @property
    def db_total(self) -> int:
        return sum(self.db.values())

    def __enter__(self) -> "RoundTrips":
        RoundTrips.install()
        self._listener.active = self
        original = self._original = AbstractConnection.send_packed_command

        async def counted(connection, command, check_health=True):
            self.redis += 1
            return await original(connection, command, check_health)

        AbstractConnection.send_packed_command = counted
        return self

    def __exit__(self, *exc) -> None:
        self._listener.active = None
        AbstractConnection.send_packed_command = self._original


class _CommandLog(monitoring.CommandListener):
    active: RoundTrips | None = None

    def started(self, event) -> None:
        if self.active is not None:
            self.active.db[event.command_name] += 1

    def succeeded(self, event) -> None:
        pass

    def failed(self, event) -> None:
        pass


def start_worker(settings, **env: str) -> subprocess.Popen:
    """A real `leadline worker` process on the test database and Redis (extra settings as env vars)."""
    env = {**os.environ, "MONGODB_URL": settings.mongodb_url, "REDIS_URL": settings.redis_url,
           "MONGODB_DATABASE": settings.database_name, "LEADLINE_REDIS_PREFIX": settings.redis_prefix,
           "CHATAPP_APP_SECRET": settings.chatapp_app_secret, "LEADLINE_LOG_LEVEL": "WARNING", **env}
    return subprocess.Popen([sys.executable, "-m", "leadline.cli", "worker"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop(proc: subprocess.Popen, *, kill: bool = False) -> None:
    if proc.poll() is None:
        proc.kill() if kill else proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


class OpenApiResponses:
    """Checks a response against the OpenAPI document of the app: its status is documented for the route
    and its body validates against that status's schema (JSON Schema 2020-12, refs into the document)."""

    def __init__(self, document: dict) -> None:
        self.document = document

    def check(self, method: str, path: str, status: int, body: Any) -> None:
        from jsonschema import Draft202012Validator

        operation = self.document["paths"][path][method.lower()]
        response = operation["responses"].get(str(status))
        assert response is not None, f"{method} {path}: status {status} is not documented ({body})"
        schema = {**response["content"]["application/json"]["schema"], "components": self.document["components"]}
        errors = sorted(Draft202012Validator(schema).iter_errors(body), key=lambda e: list(e.absolute_path))
        assert not errors, f"{method} {path} -> {status}: {errors[0].message} at {list(errors[0].absolute_path)}"
