"""Running the MCP server: inside `leadline up`'s event loop beside the API, or alone (`leadline mcp`).

uvicorn serves the ASGI app on a socket bound here first, so a port in use is a one-sentence
`StartError` (as the API's), not uvicorn's exit. The host process owns the signals (uvicorn's own
handlers are not installed). On stop, requests in flight get `GRACE_SECONDS` to finish, then open
streams (an SSE session, a streamable-HTTP GET stream) are cancelled; then the sessions end and, when
the server opened its own services, they close.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from contextlib import AsyncExitStack

import uvicorn

from leadline.config import Settings
from leadline.embedded import StartError
from leadline.mcp_server.app import McpService
from leadline.resolvers.context import Services

log = logging.getLogger("leadline.mcp")
GRACE_SECONDS = 3.0


class _Uvicorn(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self):
        """The host process handles SIGINT and SIGTERM and stops the server itself."""
        yield


def _listen(host: str, port: int) -> socket.socket:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(2048)
        except OSError:
            sock.close()
            raise
        sock.setblocking(False)
        return sock
    except OSError as exc:
        reason = os.strerror(exc.errno).lower() if exc.errno else str(exc)
        raise StartError(f"the MCP server cannot listen on {host}:{port}: {reason}") from None


class McpRunner:
    """`await start()` … `await stop()`; `services` given: the caller's (`leadline up` shares the API's)."""

    def __init__(self, settings: Settings, services: Services | None = None, *, port: int | None = None) -> None:
        self.settings = settings
        self.services = services
        self.port = settings.mcp_port if port is None else port
        self.service: McpService | None = None
        self._stack = AsyncExitStack()
        self._server: _Uvicorn | None = None
        self._task: asyncio.Task | None = None

    @property
    def url(self) -> str:
        host = f"[{self.settings.host}]" if ":" in self.settings.host else self.settings.host
        return f"http://{host}:{self.port}"

    async def start(self) -> str:
        sock = _listen(self.settings.host, self.port)
        self.port = sock.getsockname()[1]
        try:
            from leadline.services import open_services

            services = self.services
            if services is None:
                services = await self._stack.enter_async_context(open_services(self.settings))
            self.service = McpService(self.settings)
            self.service.services = services
            await self._stack.enter_async_context(self.service.session_manager.run())
            config = uvicorn.Config(self.service.app, lifespan="off", log_config=None, access_log=False,
                                    timeout_graceful_shutdown=int(GRACE_SECONDS), server_header=False)
            self._server = _Uvicorn(config)
            self._task = asyncio.create_task(self._server.serve(sockets=[sock]))
            while not self._server.started:
                if self._task.done():
                    self._task.result()
                    raise StartError("the MCP server stopped while starting")
                await asyncio.sleep(0.01)
        except BaseException:
            sock.close()
            await self.stop()
            raise
        log.info("MCP server listening on %s", self.url)
        return self.url

    async def stop(self) -> None:
        if self._server is not None and self._task is not None:
            self._server.should_exit = True
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._task
        self._server = self._task = None
        await self._stack.aclose()


async def serve_alone(settings: Settings, stop: asyncio.Event, on_ready=None) -> None:
    """`leadline mcp`: the MCP server with its own services until `stop` is set."""
    runner = McpRunner(settings)
    await runner.start()
    try:
        if on_ready is not None:
            on_ready(runner.url)
        await stop.wait()
    finally:
        await runner.stop()
