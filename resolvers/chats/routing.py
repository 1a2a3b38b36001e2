"""Which organisation a `messages` webhook belongs to, and a context acting on its behalf.

The account whose stored provider phone-number id equals `metadata.phone_number_id`; when none stores
it (the sandbox, or an account connected by number only), the chat account whose number equals
`metadata.display_phone_number`. Both lookups are single-field index reads across organisations; the
active/platform checks are done in Python on the (at most a few) accounts found. A number connected in
more than one organisation without a provider id is ambiguous and routed nowhere (logged): a webhook
never lands in an organisation it may not belong to.
"""
from __future__ import annotations

import logging
from typing import Any

from leadline.models.auth import Organisation
from leadline.models.channels import ChannelAccount
from leadline.resolvers.context import OrgSnapshot, RequestContext, Services
from leadline.resolvers.phones import digits_only

log = logging.getLogger("leadline.chats.webhooks")


def _usable(accounts: list[ChannelAccount]) -> list[ChannelAccount]:
    return [a for a in accounts if a.platform == "chatapp" and a.is_active]


async def account_for(metadata: Any) -> ChannelAccount | None:
    if not isinstance(metadata, dict):
        return None
    phone_number_id = str(metadata.get("phone_number_id") or "").strip()
    display = digits_only(str(metadata.get("display_phone_number") or ""))
    if phone_number_id:
        found = _usable(await ChannelAccount.find_across_orgs({"provider_phone_number_id": phone_number_id}).to_list())
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            log.warning("phone_number_id %s is connected in %d organisations; webhook not routed",
                        phone_number_id, len(found))
            return None
    if display.isdigit():
        found = _usable(await ChannelAccount.find_across_orgs({"platform": "chatapp", "number": display}).to_list())
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            log.warning("number %s is connected in %d organisations; webhook not routed", display, len(found))
    return None


async def org_context(services: Services, org_id: Any) -> RequestContext | None:
    org = await Organisation.get(org_id)
    if org is None:
        return None
    snapshot = OrgSnapshot(id=org.id, name=org.name, plan=org.plan, timezone=org.timezone, is_active=org.is_active,
                           allowed_origins=tuple(org.allowed_origins))
    return RequestContext.system(services, snapshot)
