"""Operator commands of the outgoing events domain (`leadline admin ...`)."""
from __future__ import annotations

from leadline.admin import AdminEnv, command


@command("add-webhook", "add a webhook endpoint to an organisation; prints its secret (shown once)",
         needs_services=True,
         arguments=lambda p: (p.add_argument("--org", required=True, help="the organisation's id"),
                              p.add_argument("--url", required=True, help="the endpoint's HTTPS URL"),
                              p.add_argument("--events", help='comma-separated event kinds (default: all), '
                                                              'e.g. "contact.created,chatapp.new_message"'),
                              p.add_argument("--description", help="a note shown with the endpoint")))
async def add_webhook(args, env: AdminEnv):
    from leadline.resolvers.auth import admin
    from leadline.resolvers.auth.snapshots import OrgSnapshot
    from leadline.resolvers.context import RequestContext
    from leadline.resolvers.errors import ApiError
    from leadline.resolvers.events.endpoints import EndpointWrite, create_endpoint

    org = await admin.get_org(args.org)
    ctx = RequestContext.system(env.services, OrgSnapshot(org.id, org.name, org.plan, org.timezone, org.is_active, ()))
    kinds = [k.strip() for k in (args.events or "").split(",") if k.strip()]
    try:
        created = await create_endpoint(ctx, EndpointWrite(args.url, args.description, kinds, True))
    except ApiError as err:
        if isinstance(err.details, list) and err.details:
            raise admin.AdminError(f"{err.details[0]['path']}: {err.details[0]['message']}") from None
        raise admin.AdminError(err.message) from None
    return {"endpointId": str(created.endpoint.id), "secret": created.secret}
