"""A bare aiohttp handler doing the same database read as GET /v2.0/billing/plan: the baseline."""
from __future__ import annotations

import asyncio
import os
import sys

from aiohttp import web
from bson import ObjectId

from leadline.database import connect_database
from models.billing import Subscription
from resolvers.billing.plans import PLANS


async def plan(request: web.Request) -> web.Response:
    org_id = ObjectId(request.query["org"])
    sub = await Subscription.find_in(org_id, {"status": "active"}).sort("-created_at").first_or_none()
    p = PLANS[sub.plan_id]
    return web.json_response({"success": True, "data": {
        "plan": {"name": p.name, "description": p.description},
        "subscription": {"subscriptionId": str(sub.id), "status": sub.status},
        "limits": {k: {"limit": v, "used": None, "remaining": None} for k, v in p.limits.items()},
    }})


async def main(port: int) -> None:
    await connect_database(os.environ["MONGODB_URL"], os.environ.get("MONGODB_DATABASE", "leadline"))
    app = web.Application()
    app.router.add_get("/plan", plan)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    print("ready", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
