"""The `leadline` command: up (the whole embedded stack, supervised), serve, worker, admin.

A start that fails prints one sentence with the cause (and the log to read), never a traceback.
Every flag has a help text that shows its default (`leadline <command> --help`). Imports are lazy: the
parser and `leadline admin` load only what the chosen command needs (docs/cli.md).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
from dataclasses import replace

from leadline import logs
from leadline.config import Settings

DATA_DIR_HELP = "the data directory of the embedded stack (database, Redis, logs, run state)"


class HelpFormatter(argparse.HelpFormatter):
    """Appends each flag's default to its help text (when it has one and the text does not say it)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if ("%(default)" in text or "default" in text.lower() or default in (None, False, argparse.SUPPRESS)
                or action.required or not action.option_strings):
            return text
        return f"{text} (default: %(default)s)"


def _parser(sub, name: str, help: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help, description=help, formatter_class=HelpFormatter)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="leadline", description="Leadline messaging and lead-management service",
                                     formatter_class=HelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    up = _parser(sub, "up", "start the whole embedded stack (database, Redis, API, worker, MCP)")
    up.add_argument("--host", default="127.0.0.1", help="address the API and the MCP server listen on")
    up.add_argument("--port", type=int, default=8080, help="the API's port")
    up.add_argument("--mcp-port", type=int, default=8081, help="the MCP server's port")
    up.add_argument("--data-dir", default=".leadline", help=DATA_DIR_HELP)

    serve = _parser(sub, "serve", "the API server alone (uses MONGODB_URL, REDIS_URL)")
    serve.add_argument("--host", default=None, help="listen address (default: LEADLINE_HOST or 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="listen port (default: LEADLINE_PORT or 8080)")
    serve.add_argument("--data-dir", default=".leadline",
                       help="without MONGODB_URL/REDIS_URL: the embedded stack's data directory")

    worker = _parser(sub, "worker", "the arq worker alone (uses MONGODB_URL, REDIS_URL)")
    worker.add_argument("--data-dir", default=".leadline",
                        help="without MONGODB_URL/REDIS_URL: the data directory of a running `leadline up`")

    mcp = _parser(sub, "mcp", "the MCP server alone (uses MONGODB_URL, REDIS_URL; port LEADLINE_MCP_PORT)")
    mcp.add_argument("--host", default=None, help="listen address (default: LEADLINE_HOST or 127.0.0.1)")
    mcp.add_argument("--port", type=int, default=None, help="default: LEADLINE_MCP_PORT or 8081")
    mcp.add_argument("--data-dir", default=".leadline",
                     help="without MONGODB_URL/REDIS_URL: the data directory of a running `leadline up`")

    admin = _parser(sub, "admin", "operator commands; print JSON (use the stack of `leadline up` in --data-dir, "
                                  "or MONGODB_URL and REDIS_URL)")
    admin.add_argument("--data-dir", default=".leadline", help="the data directory of a running `leadline up`")
    acts = admin.add_subparsers(dest="action", required=True, metavar="ACTION")
    from leadline.admin import load

    for name, cmd in load().items():
        action = _parser(acts, name, cmd.help)
        cmd.arguments(action)
        # Accepted after the action too (`leadline admin create-org --data-dir D ...`); it wins there.
        action.add_argument("--data-dir", default=argparse.SUPPRESS,
                            help="the data directory of a running `leadline up` (default: .leadline)")
    return parser


def _backends_from_state(settings: Settings, data_dir: str) -> Settings:
    """Env wins; otherwise the database and Redis of a running `leadline up` in this directory."""
    if settings.mongodb_url and settings.redis_url:
        return settings
    from leadline.embedded import read_state

    state = read_state(data_dir) or {}
    return replace(settings, mongodb_url=settings.mongodb_url or state.get("mongodb_url"),
                   redis_url=settings.redis_url or state.get("redis_url"))


# --- admin --------------------------------------------------------------------------------
async def _run_admin(args: argparse.Namespace, settings: Settings):
    from contextlib import AsyncExitStack

    from redis.asyncio import Redis

    from leadline.admin import COMMANDS, AdminEnv
    from leadline.database import connect_database
    from leadline.resolvers.auth.admin import AdminError

    cmd = COMMANDS[args.action]
    if not settings.mongodb_url:
        raise AdminError("no database: start `leadline up` in this directory or set MONGODB_URL")
    if (cmd.needs_redis or cmd.needs_services) and not settings.redis_url:
        raise AdminError("no Redis to tell running servers about the change: set REDIS_URL")
    async with AsyncExitStack() as stack:
        if cmd.needs_services:
            from leadline.services import open_services

            services = await stack.enter_async_context(open_services(settings))
            env = AdminEnv(settings, services.redis, services)
        else:
            # The API of the stack registers the indexes at its start; an operator command need not.
            mongo = await connect_database(settings.mongodb_url, settings.database_name,
                                           timeout_ms=settings.db_timeout_ms, indexes=False)
            stack.push_async_callback(mongo.close)
            redis = Redis.from_url(settings.redis_url) if settings.redis_url else None
            if redis is not None:
                stack.push_async_callback(redis.aclose)
            env = AdminEnv(settings, redis)
        return await cmd.run(args, env)


def admin_main(args: argparse.Namespace) -> int:
    from leadline.resolvers.auth.admin import AdminError

    settings = _backends_from_state(Settings.from_env(), args.data_dir)
    try:
        result = asyncio.run(_run_admin(args, settings))
    except AdminError as exc:
        print(f"leadline admin: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - an operator gets a sentence, not a traceback
        print(f"leadline admin: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0


# --- serving ------------------------------------------------------------------------------
async def _serve(settings: Settings, on_ready=None, supervise=None, with_mcp: bool = False) -> None:
    """Serve the API until SIGINT/SIGTERM; `supervise(stop)` runs beside it (`leadline up`'s children);
    `with_mcp`: the MCP server too, on `settings.mcp_port`, sharing the API's services."""
    from aiohttp import web

    from leadline.app import create_app
    from leadline.embedded import StartError

    app = create_app(settings)
    runner = web.AppRunner(app, shutdown_timeout=settings.shutdown_timeout, access_log=None, handle_signals=False)
    await runner.setup()
    stop = asyncio.Event()
    supervisor = mcp = None
    try:
        site = web.TCPSite(runner, settings.host, settings.port)
        try:
            await site.start()
        except OSError as exc:
            reason = os.strerror(exc.errno).lower() if exc.errno else str(exc)
            raise StartError(f"the API cannot listen on {settings.host}:{settings.port}: {reason}") from None
        if with_mcp:
            from leadline.app_keys import SERVICES
            from leadline.mcp_server.serve import McpRunner

            mcp = McpRunner(settings, app[SERVICES])
            await mcp.start()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        if supervise is not None:
            supervisor = asyncio.create_task(supervise(stop))
        if on_ready:
            on_ready(f"http://{settings.host}:{settings.port}")
        await stop.wait()
    finally:
        stop.set()
        if supervisor is not None:
            await supervisor
        if mcp is not None:
            await mcp.stop()
        # Stops accepting, lets in-flight requests finish (up to shutdown_timeout), then closes services.
        await runner.cleanup()


def _start_failed(command: str, exc: BaseException, data_dir: str | None = None) -> int:
    """One sentence on stderr, never a traceback (it is logged at DEBUG for a developer)."""
    from leadline.embedded import StartError

    if isinstance(exc, KeyboardInterrupt):
        return 130
    if isinstance(exc, StartError):
        print(f"leadline {command}: {exc}.", file=sys.stderr, flush=True)
        return 1
    logging.getLogger("leadline.cli").debug("start failed", exc_info=exc)
    where = f"; see the logs in {os.path.join(os.path.abspath(data_dir), 'logs')}" if data_dir else ""
    print(f"leadline {command}: stopped by an unexpected error ({type(exc).__name__}: {exc}){where}.",
          file=sys.stderr, flush=True)
    return 1


def serve_main(args: argparse.Namespace) -> int:
    from leadline.embedded import EmbeddedStack

    settings = Settings.from_env()
    settings = replace(settings, host=args.host or settings.host, port=args.port or settings.port)
    settings = _backends_from_state(settings, args.data_dir)
    stack = None
    try:
        if not settings.mongodb_url or not settings.redis_url:
            stack = EmbeddedStack.start(args.data_dir)
            settings = replace(settings, mongodb_url=settings.mongodb_url or stack.database.url,
                               redis_url=settings.redis_url or stack.redis.url)
        asyncio.run(_serve(settings, on_ready=lambda url: print(f"Leadline API listening on {url}", flush=True)))
    except BaseException as exc:  # noqa: BLE001 - an operator gets a sentence, not a traceback
        if isinstance(exc, SystemExit):
            raise
        return _start_failed("serve", exc, args.data_dir if stack else None)
    finally:
        if stack:
            stack.stop()
    return 0


def worker_main(args: argparse.Namespace) -> int:
    from leadline.jobs.worker import build_worker

    from leadline.dbprofile import install_from_env

    install_from_env()
    settings = _backends_from_state(Settings.from_env(), args.data_dir)
    if not settings.mongodb_url or not settings.redis_url:
        print("leadline worker: set MONGODB_URL and REDIS_URL (or start `leadline up` here)", file=sys.stderr)
        return 2
    build_worker(settings).run()
    return 0


def mcp_main(args: argparse.Namespace) -> int:
    """`leadline mcp`: the MCP server alone, on the database and Redis of MONGODB_URL and REDIS_URL (or of a
    `leadline up` running in --data-dir)."""
    from leadline.mcp_server.serve import serve_alone

    settings = Settings.from_env()
    settings = replace(settings, host=args.host or settings.host, mcp_port=args.port or settings.mcp_port)
    settings = _backends_from_state(settings, args.data_dir)
    if not settings.mongodb_url or not settings.redis_url:
        print("leadline mcp: set MONGODB_URL and REDIS_URL (or start `leadline up` here)", file=sys.stderr)
        return 2

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await serve_alone(settings, stop, on_ready=lambda url: print(f"Leadline MCP listening on {url}/mcp",
                                                                      flush=True))

    try:
        asyncio.run(run())
    except BaseException as exc:  # noqa: BLE001 - an operator gets a sentence, not a traceback
        if isinstance(exc, SystemExit):
            raise
        return _start_failed("mcp", exc)
    return 0


def _forget_worker(settings: Settings):
    """After the worker died: drop its heartbeat, so /health reports it missing until a new one beats."""
    async def on_exit(child: EmbeddedProcess) -> None:
        if child.name != "worker":
            return
        from redis.asyncio import Redis

        from leadline.jobs.worker import heartbeat_key

        redis = Redis.from_url(settings.redis_url, socket_connect_timeout=1, socket_timeout=1)
        try:
            await redis.delete(heartbeat_key(settings.redis_prefix))
        finally:
            await redis.aclose()
    return on_exit


def up_main(args: argparse.Namespace) -> int:
    settings = replace(Settings.from_env(), host=args.host, port=args.port, mcp_port=args.mcp_port,
                       data_dir=args.data_dir, health_requires_worker=True)
    from leadline.embedded import EmbeddedProcess, EmbeddedStack, Supervisor

    root = os.path.abspath(args.data_dir)
    logs_dir = os.path.join(root, "logs")
    print(f"Starting the embedded stack in {root} (logs in {logs_dir}) ...", flush=True)
    stack = None
    try:
        stack = EmbeddedStack.start(args.data_dir, progress=lambda what: print(f"  {what} ...", flush=True))
        for what in stack.ended:
            print(f"Ended the {what} a previous run left running.", flush=True)
        settings = replace(settings, mongodb_url=settings.mongodb_url or stack.database.url,
                           redis_url=settings.redis_url or stack.redis.url)
        env = {**os.environ, "MONGODB_URL": settings.mongodb_url, "REDIS_URL": settings.redis_url}
        worker = EmbeddedProcess("worker", None, [sys.executable, "-m", "leadline.cli", "worker"],
                                 stack.log_path("worker"), stack.pid_path("worker"), env=env, stop_timeout=30.0)
        stack.extra.append(worker)
        print("  starting the worker ...", flush=True)
        worker.spawn()
        print("  starting the API and the MCP server ...", flush=True)
        children = [stack.database, stack.redis, worker]
        supervisor = Supervisor(children, on_exit=_forget_worker(settings))

        def ready(url: str) -> None:
            mcp_url = f"http://{settings.host}:{settings.mcp_port}"
            stack.write_state(base_url=url, mcp_url=mcp_url)
            print(f"Leadline is up: {url}  (GraphQL: {url}/graphql; MCP: {mcp_url}/mcp; stop with Ctrl-C)\n"
                  f"  API       {url}/v2.0  (reference: {url}/docs; OpenAPI: {url}/v2.0/openapi.json)\n"
                  f"  GraphiQL  {url}/graphql  (set the Authorization header in its Headers pane)\n"
                  f"  MCP       {mcp_url}/mcp\n"
                  f"  Logs      {logs_dir}\n"
                  f"  Next: create an organisation and a key (README, Quick start).", flush=True)

        asyncio.run(_serve(settings, on_ready=ready, supervise=supervisor.run, with_mcp=True))
    except BaseException as exc:  # noqa: BLE001 - an operator gets a sentence, not a traceback
        if isinstance(exc, SystemExit):
            raise
        return _start_failed("up", exc, args.data_dir)
    finally:
        if stack is not None:
            stack.stop()
            print("Leadline stopped.", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "admin":
        return admin_main(args)
    logs.configure(os.environ.get("LEADLINE_LOG_LEVEL", "INFO"))
    from leadline.resolvers.secrets import configuration_problem

    problem = configuration_problem(Settings.from_env())  # stored secrets need their key (docs/tools.md)
    if problem:
        print(f"leadline {args.command}: {problem}.", file=sys.stderr, flush=True)
        return 1
    return {"up": up_main, "serve": serve_main, "worker": worker_main, "mcp": mcp_main}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
