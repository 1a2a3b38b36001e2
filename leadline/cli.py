"""The `leadline` command: up (whole embedded stack), serve, worker, admin."""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
from dataclasses import replace

from leadline import logs
from leadline.config import Settings
from leadline.embedded import EmbeddedStack, read_state


def _bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError("expected true or false")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="leadline", description="Leadline messaging and lead-management service")
    sub = parser.add_subparsers(dest="command", required=True)

    up = sub.add_parser("up", help="start the whole embedded stack (database, Redis, API, worker)")
    up.add_argument("--host", default="127.0.0.1")
    up.add_argument("--port", type=int, default=8080)
    up.add_argument("--mcp-port", type=int, default=8081)
    up.add_argument("--data-dir", default=".leadline")

    serve = sub.add_parser("serve", help="the API server alone (uses MONGODB_URL, REDIS_URL)")
    serve.add_argument("--host", default=None)
    serve.add_argument("--port", type=int, default=None)
    serve.add_argument("--data-dir", default=".leadline")

    worker = sub.add_parser("worker", help="the arq worker alone (uses MONGODB_URL, REDIS_URL)")
    worker.add_argument("--data-dir", default=".leadline")

    admin = sub.add_parser("admin", help="operator commands; print one JSON object")
    admin.add_argument("--data-dir", default=".leadline")
    acts = admin.add_subparsers(dest="action", required=True)
    a = acts.add_parser("create-org")
    a.add_argument("--name", required=True)
    a.add_argument("--plan", default="free", choices=["free", "growth", "pro", "business"])
    a.add_argument("--timezone", default="UTC")
    a = acts.add_parser("create-key")
    a.add_argument("--org", required=True)
    a.add_argument("--scopes", required=True)
    a.add_argument("--label")
    a = acts.add_parser("revoke-key")
    a.add_argument("--org", required=True)
    a.add_argument("--key-id", required=True)
    a = acts.add_parser("set-plan")
    a.add_argument("--org", required=True)
    a.add_argument("--plan", required=True, choices=["free", "growth", "pro", "business"])
    a = acts.add_parser("set-org-active")
    a.add_argument("--org", required=True)
    a.add_argument("--active", required=True, type=_bool)
    a = acts.add_parser("set-allowed-origins")
    a.add_argument("--org", required=True)
    a.add_argument("--origins", required=True)
    a = acts.add_parser("connect-channel")
    a.add_argument("--org", required=True)
    a.add_argument("--platform", required=True, choices=["chatapp", "photoapp", "pageapp"])
    a.add_argument("--number", required=True)
    a.add_argument("--business-name")
    a.add_argument("--review-status", default="APPROVED", choices=["APPROVED", "PENDING", "REJECTED"])
    a.add_argument("--provider", choices=["sandbox", "meta"], help="adapter for this account (default: LEADLINE_PROVIDER)")
    a.add_argument("--provider-id", help="provider phone-number id (chatapp) or account/page id")
    a.add_argument("--provider-account-id", help="provider business account id (chatapp: the WABA id)")
    a.add_argument("--access-token", help="provider access token")
    a = acts.add_parser("set-wallet")
    a.add_argument("--org", required=True)
    a.add_argument("--balance", required=True)
    a.add_argument("--active", type=_bool, default=True)
    return parser


def _backends_from_state(settings: Settings, data_dir: str) -> Settings:
    """Env wins; otherwise the database and Redis of a running `leadline up` in this directory."""
    if settings.mongodb_url and settings.redis_url:
        return settings
    state = read_state(data_dir) or {}
    return replace(settings, mongodb_url=settings.mongodb_url or state.get("mongodb_url"),
                   redis_url=settings.redis_url or state.get("redis_url"))


# --- admin --------------------------------------------------------------------------------
async def _run_admin(args: argparse.Namespace, settings: Settings) -> dict:
    from redis.asyncio import Redis

    from leadline.database import connect_database
    from leadline.resolvers.auth import admin
    from leadline.resolvers.billing.admin import set_wallet
    from leadline.resolvers.channels.admin import connect_channel

    if not settings.mongodb_url:
        raise admin.AdminError("no database: start `leadline up` in this directory or set MONGODB_URL")
    mongo = await connect_database(settings.mongodb_url, settings.database_name)
    redis = Redis.from_url(settings.redis_url) if settings.redis_url else None
    prefix = settings.redis_prefix
    try:
        act = args.action
        if act == "create-org":
            return await admin.create_org(args.name, args.plan, args.timezone)
        if act == "create-key":
            return await admin.create_key(args.org, args.scopes, args.label)
        if act == "connect-channel":
            return await connect_channel(args.org, args.platform, args.number, args.business_name, args.review_status,
                                         provider=args.provider, provider_id=args.provider_id,
                                         access_token=args.access_token,
                                         provider_account_id=args.provider_account_id, redis=redis, prefix=prefix)
        if act == "set-wallet":
            return await set_wallet(args.org, args.balance, args.active)
        if redis is None:
            raise admin.AdminError("no Redis to tell running servers about the change: set REDIS_URL")
        if act == "revoke-key":
            return await admin.revoke_key(redis, prefix, args.org, args.key_id)
        if act == "set-plan":
            return await admin.set_plan(redis, prefix, args.org, args.plan)
        if act == "set-org-active":
            return await admin.set_org_active(redis, prefix, args.org, args.active)
        if act == "set-allowed-origins":
            return await admin.set_allowed_origins(redis, prefix, args.org, args.origins)
        raise admin.AdminError(f"unknown action {act}")
    finally:
        if redis is not None:
            await redis.aclose()
        await mongo.close()


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
async def _serve(settings: Settings, on_ready=None) -> None:
    from aiohttp import web

    from leadline.app import create_app

    app = create_app(settings)
    runner = web.AppRunner(app, shutdown_timeout=settings.shutdown_timeout, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, settings.host, settings.port)
    await site.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    if on_ready:
        on_ready(f"http://{settings.host}:{settings.port}")
    try:
        await stop.wait()
    finally:
        # Stops accepting, lets in-flight requests finish (up to shutdown_timeout), then closes services.
        await runner.cleanup()


def serve_main(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    settings = replace(settings, host=args.host or settings.host, port=args.port or settings.port)
    settings = _backends_from_state(settings, args.data_dir)
    stack = None
    if not settings.mongodb_url or not settings.redis_url:
        stack = EmbeddedStack.start(args.data_dir)
        settings = replace(settings, mongodb_url=settings.mongodb_url or stack.database.url,
                           redis_url=settings.redis_url or stack.redis.url)
    try:
        asyncio.run(_serve(settings, on_ready=lambda url: print(f"Leadline API listening on {url}", flush=True)))
    finally:
        if stack:
            stack.stop()
    return 0


def worker_main(args: argparse.Namespace) -> int:
    from leadline.jobs.worker import build_worker

    settings = _backends_from_state(Settings.from_env(), args.data_dir)
    if not settings.mongodb_url or not settings.redis_url:
        print("leadline worker: set MONGODB_URL and REDIS_URL (or start `leadline up` here)", file=sys.stderr)
        return 2
    build_worker(settings).run()
    return 0


def up_main(args: argparse.Namespace) -> int:
    settings = replace(Settings.from_env(), host=args.host, port=args.port, mcp_port=args.mcp_port,
                       data_dir=args.data_dir)
    print(f"Starting the embedded stack in {os.path.abspath(args.data_dir)} ...", flush=True)
    stack = EmbeddedStack.start(args.data_dir)
    settings = replace(settings, mongodb_url=settings.mongodb_url or stack.database.url,
                       redis_url=settings.redis_url or stack.redis.url)
    env = {**os.environ, "MONGODB_URL": settings.mongodb_url, "REDIS_URL": settings.redis_url}
    log_dir = os.path.join(args.data_dir, "logs")
    worker = subprocess.Popen([sys.executable, "-m", "leadline.cli", "worker"], env=env,
                              stdout=open(os.path.join(log_dir, "worker.log"), "ab"), stderr=subprocess.STDOUT)

    def ready(url: str) -> None:
        stack.write_state(base_url=url)
        print(f"Leadline is up: {url}  (GraphQL: {url}/graphql; stop with Ctrl-C)", flush=True)

    try:
        asyncio.run(_serve(settings, on_ready=ready))
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            worker.kill()
        stack.stop()
        print("Leadline stopped.", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "admin":
        return admin_main(args)
    logs.configure(os.environ.get("LEADLINE_LOG_LEVEL", "INFO"))
    return {"up": up_main, "serve": serve_main, "worker": worker_main}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
