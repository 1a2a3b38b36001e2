"""A small graphql-transport-ws client for the live-update tests (aiohttp websockets, real sockets)."""
from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp

PROTOCOL = "graphql-transport-ws"
UPDATES = ("subscription($c: ID) { inboxUpdates(conversationId: $c) { type conversationId payload } }")


class Live:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws

    @classmethod
    async def open(cls, connect, key: str | None, *, url: str = "/graphql", payload: dict | None = None,
                   headers: dict | None = None) -> "Live":
        """`connect`: the test client's `ws_connect` (url: the path), or a session's (url: ws://host:port/graphql)."""
        ws = await connect(url, protocols=(PROTOCOL,), headers=headers)
        live = cls(ws)
        init = payload if payload is not None else ({"Authorization": f"Bearer {key}"} if key else {})
        await ws.send_str(json.dumps({"type": "connection_init", "payload": init}))
        return live

    async def acked(self) -> "Live":
        message = await self.receive()
        assert message == {"type": "connection_ack"}, message
        return self

    async def subscribe(self, op_id: str = "1", conversation_id: str | None = None, query: str = UPDATES) -> None:
        await self.ws.send_str(json.dumps({"id": op_id, "type": "subscribe", "payload": {
            "query": query, "variables": {"c": conversation_id}}}))

    async def receive(self, timeout: float = 2.0) -> dict[str, Any]:
        message = await self.ws.receive(timeout=timeout)
        if message.type != aiohttp.WSMsgType.TEXT:
            return {"closed": self.ws.close_code, "kind": message.type.name}
        return json.loads(message.data)

    async def update(self, timeout: float = 2.0) -> dict[str, Any]:
        """The next `next` message's inboxUpdates."""
        message = await self.receive(timeout)
        assert message.get("type") == "next", message
        return message["payload"]["data"]["inboxUpdates"]

    async def nothing(self, seconds: float = 0.5) -> None:
        try:
            message = await self.ws.receive(timeout=seconds)
        except asyncio.TimeoutError:
            return
        raise AssertionError(f"expected nothing, got {message.type.name} {message.data!r}")

    async def close(self) -> None:
        await self.ws.close()


async def subscribed(redis, prefix: str, org_id: str, processes: int = 1, timeout: float = 5.0) -> None:
    """Until `processes` API processes listen on the organisation's live channel (PUBSUB NUMSUB)."""
    channel = f"{prefix}:inbox:live:{org_id}"
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        counts = dict(await redis.pubsub_numsub(channel))
        if counts.get(channel.encode(), 0) >= processes:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"nobody subscribed to {channel}")


async def joined(services, org_id: str, count: int, timeout: float = 5.0) -> None:
    """Until this process's hub holds `count` subscriptions of the organisation and Redis has its channel
    subscription (the app under test runs in this process)."""
    from bson import ObjectId

    from leadline.resolvers.inbox import live

    name = live.channel(services, ObjectId(org_id))
    hub = live.hub_for(services)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if len(hub.local.get(name, ())) >= count:
            return await subscribed(services.redis, services.settings.redis_prefix, org_id,
                                    timeout=max(0.1, deadline - loop.time()))
        await asyncio.sleep(0.01)
    raise AssertionError(f"{len(hub.local.get(name, ()))} of {count} subscriptions joined")
