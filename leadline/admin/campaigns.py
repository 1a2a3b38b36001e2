"""Operator commands of the campaigns domain (`leadline admin ...`)."""
from __future__ import annotations

import json

from leadline.admin import AdminEnv, command


@command("create-segment", "save a contact filter as a segment for campaign audiences", needs_services=True,
         arguments=lambda p: (p.add_argument("--org", required=True, help="the organisation's id"),
                              p.add_argument("--name", required=True, help="the segment's name"),
                              p.add_argument("--filter", required=True, help="JSON, as POST /v2.0/contacts/filter takes"),
                              p.add_argument("--inactive", action="store_true", help="create it inactive")))
async def segment(args, env: AdminEnv):
    from leadline.resolvers.auth import admin
    from leadline.resolvers.auth.snapshots import OrgSnapshot
    from leadline.resolvers.campaigns.segments import create_segment
    from leadline.resolvers.context import RequestContext
    from leadline.resolvers.errors import ApiError

    org = await admin.get_org(args.org)
    try:
        rules = json.loads(args.filter)
    except ValueError:
        raise admin.AdminError("--filter is not valid JSON") from None
    ctx = RequestContext.system(env.services, OrgSnapshot(org.id, org.name, org.plan, org.timezone, org.is_active, ()))
    try:
        created = await create_segment(ctx, args.name, rules, not args.inactive)
    except ApiError as err:
        problem = (err.details or [{}])[0]
        raise admin.AdminError(f"{problem.get('path', 'filter')}: {problem.get('message', err.message)}") from None
    return {"segmentId": str(created.id)}
