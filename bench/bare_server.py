"""A bare aiohttp handler doing the same database reads as GET /v2.0/billing/plan: the baseline.

No authentication, rate gate, GraphQL or envelope: it calls the same domain function (the active
subscription and the usage counts) for the organisation named in the query and writes the JSON.
"""
from __future__ import annotations

import asyncio
import sys

from aiohttp import web
from bson import ObjectId

from leadline.config import Settings
from leadline.services import open_services
from leadline.resolvers.billing.queries import plan_overview
from leadline.resolvers.context import OrgSnapshot, RequestContext


async def main(port: int) -> None:
    settings = Settings.from_env()
    async with open_services(settings, with_queue=False) as services:
        async def plan(request: web.Request) -> web.Response:
            org = OrgSnapshot(ObjectId(request.query["org"]), "bench", "business", "UTC", True, ())
            o = await plan_overview(RequestContext.system(services, org))
            sub = o.subscription
            return web.json_response({"success": True, "data": {
                "plan": {"name": o.plan.name, "description": o.plan.description},
                "subscription": {"subscriptionId": str(sub.id), "status": sub.status} if sub else None,
                "limits": {u.key: {"limit": u.limit, "used": u.used, "remaining": u.remaining} for u in o.limits},
                "features": o.features,
            }})

        app = web.Application()
        app.router.add_get("/plan", plan)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        print("ready", flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
