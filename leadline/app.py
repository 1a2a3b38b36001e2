"""The aiohttp application: /v2.0 (REST table), /graphql (Strawberry), /health."""
from __future__ import annotations

import logging
from typing import Any

import aiohttp_cors
from aiohttp import web
from strawberry.aiohttp.views import GraphQLView

from leadline.app_keys import SERVICES, SETTINGS
from leadline.config import Settings
from leadline.logs import install_request_id_stamp
from leadline.http import add_common_headers, auth_middleware, request_middleware
from leadline.webhooks import add_webhook_routes
from leadline.services import open_services
from leadline.rest_compat.compile import compile_routes
from leadline.rest_compat.handler import make_handler
from leadline.rest_compat.request_keys import CTX
from leadline.schema import OPERATIONS, schema

log = logging.getLogger("leadline.app")
MAX_BODY_BYTES = 8 * 1024 * 1024  # provider webhooks can carry a few MB


class LeadlineGraphQLView(GraphQLView):
    async def get_context(self, request: web.Request, response: Any) -> Any:
        return request.get(CTX)


async def health(request: web.Request) -> web.Response:
    services = request.app[SERVICES]
    try:
        from leadline.models.auth import Organisation

        await Organisation.get_pymongo_collection().database.command("ping")
        await services.redis.ping()
    except Exception as exc:  # noqa: BLE001
        log.warning("health check failed: %s", exc)
        return web.json_response({"status": "unavailable"}, status=503)
    return web.json_response({"status": "ok"})


def create_app(settings: Settings, *, graphql_schema=schema, operations=OPERATIONS) -> web.Application:
    install_request_id_stamp()
    app = web.Application(middlewares=[request_middleware, auth_middleware], client_max_size=MAX_BODY_BYTES)
    app[SETTINGS] = settings

    async def services_ctx(app: web.Application):
        async with open_services(settings) as services:
            app[SERVICES] = services
            yield

    app.cleanup_ctx.append(services_ctx)
    app.on_response_prepare.append(add_common_headers)

    cors = aiohttp_cors.setup(app, defaults={
        origin: aiohttp_cors.ResourceOptions(
            allow_credentials=False,
            allow_headers=("Authorization", "Content-Type", "X-Request-Id"),
            expose_headers=("X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
                            "Retry-After"),
            allow_methods="*",
        ) for origin in settings.cors_origins
    })

    # Compiled (parsed and validated) once, here; requests only execute.
    for compiled in compile_routes(graphql_schema, operations):
        cors.add(app.router.add_route(compiled.method, compiled.path, make_handler(graphql_schema, compiled)))

    view = LeadlineGraphQLView(schema=graphql_schema, graphql_ide="graphiql" if settings.is_development else None)
    cors.add(app.router.add_route("GET", "/graphql", view))
    cors.add(app.router.add_route("POST", "/graphql", view))
    app.router.add_get("/health", health)
    add_webhook_routes(app)
    return app
