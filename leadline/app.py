"""The aiohttp application: /v2.0 (REST table), /graphql (Strawberry), /health."""
from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

import aiohttp_cors
import pymongo
from aiohttp import web
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL

from leadline.app_keys import SERVICES, SETTINGS
from leadline.config import Settings
from leadline.logs import install_request_id_stamp
from leadline.jobs.worker import heartbeat_key
from leadline.http import PARSER_LIMITS, LeadlineGraphQLView, add_common_headers, auth_middleware, request_middleware
from leadline.webhooks import add_webhook_routes
from leadline.services import open_services
from leadline.rest_compat.compile import compile_routes
from leadline.rest_compat.handler import make_handler
from leadline.rest_compat.openapi import build_openapi
from leadline.apidocs import add_docs_routes
from leadline.resolvers.inbox import live
from leadline.schema import OPERATIONS, schema

log = logging.getLogger("leadline.app")
MAX_BODY_BYTES = 8 * 1024 * 1024  # provider webhooks can carry a few MB
# Below the supervisor's first restart delay (1 s): a probe during a restart reports the part missing
# instead of waiting for it to come back.
HEALTH_BUDGET_SECONDS = 1.0


def cors_origins(settings: Settings) -> tuple[str, ...]:
    """The origins CORS admits: LEADLINE_CORS_ORIGINS; in production never the `*` wildcard (a production
    deployment names its dashboards). Credentials are never allowed: keys travel in Authorization."""
    if settings.is_development:
        return settings.cors_origins
    dropped = [o for o in settings.cors_origins if o == "*"]
    if dropped:
        log.warning("LEADLINE_CORS_ORIGINS '*' is ignored in production; name the dashboard origins")
    return tuple(o for o in settings.cors_origins if o != "*")


async def missing_parts(services) -> list[str]:
    """What the service lacks now: "database", "redis", "worker" (each probe within HEALTH_BUDGET_SECONDS)."""
    from leadline.models.auth import Organisation

    async def database() -> None:
        with pymongo.timeout(HEALTH_BUDGET_SECONDS):
            await Organisation.get_pymongo_collection().database.command("ping")

    async def redis() -> bool:
        """Whether a worker's heartbeat is there (asked only when it matters)."""
        await asyncio.wait_for(services.redis.ping(), HEALTH_BUDGET_SECONDS)
        if not services.settings.health_requires_worker:
            return True
        key = heartbeat_key(services.settings.redis_prefix)
        return bool(await asyncio.wait_for(services.redis.exists(key), HEALTH_BUDGET_SECONDS))

    db_result, redis_result = await asyncio.gather(database(), redis(), return_exceptions=True)
    missing = []
    for name, result in (("database", db_result), ("redis", redis_result)):
        if isinstance(result, BaseException):
            log.warning("health check: %s unavailable: %s", name, result or type(result).__name__)
            missing.append(name)
    if redis_result is False:
        missing.append("worker")
    return missing


async def health(request: web.Request) -> web.Response:
    missing = await missing_parts(request.app[SERVICES])
    if missing:
        return web.json_response({"status": "degraded", "missing": missing}, status=503)
    return web.json_response({"status": "ok"})


def create_app(settings: Settings, *, graphql_schema=schema, operations=OPERATIONS) -> web.Application:
    install_request_id_stamp()
    app = web.Application(middlewares=[request_middleware, auth_middleware], client_max_size=MAX_BODY_BYTES,
                          handler_args=PARSER_LIMITS)
    app[SETTINGS] = settings

    async def services_ctx(app: web.Application):
        async with open_services(settings) as services:
            app[SERVICES] = services
            try:
                yield
            finally:
                await live.close_hub(services)  # this process's live-update subscriptions, before Redis closes

    app.cleanup_ctx.append(services_ctx)
    app.on_response_prepare.append(add_common_headers)

    cors = aiohttp_cors.setup(app, defaults={
        origin: aiohttp_cors.ResourceOptions(
            allow_credentials=False,
            allow_headers=("Authorization", "Content-Type", "X-Request-Id", "Idempotency-Key"),
            expose_headers=("X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
                            "Retry-After", "Idempotent-Replayed"),
            allow_methods="*",
        ) for origin in cors_origins(settings)
    })

    # Compiled (parsed and validated) once, here; requests only execute.
    routes = compile_routes(graphql_schema, operations)
    for compiled in routes:
        cors.add(app.router.add_route(compiled.method, compiled.path, make_handler(graphql_schema, compiled)))
    # The OpenAPI document of that table (a route it cannot describe stops start-up in development and
    # tests) and /docs; neither needs a key.
    cors.add(add_docs_routes(app, build_openapi(graphql_schema, routes, strict=settings.is_development)))

    # Subscriptions: graphql-transport-ws only (authenticated by connection_init), from the CORS origins.
    view = LeadlineGraphQLView(schema=graphql_schema, graphql_ide="graphiql" if settings.is_development else None,
                               subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
                               connection_init_wait_timeout=timedelta(seconds=10),
                               allowed_origins=cors_origins(settings))
    cors.add(app.router.add_route("GET", "/graphql", view))
    cors.add(app.router.add_route("POST", "/graphql", view))
    app.router.add_get("/health", health)
    add_webhook_routes(app)
    return app
