"""Which organisation a `messages` webhook belongs to, and a context acting on its behalf.

The account whose stored provider phone-number id equals `metadata.phone_number_id`; when none stores
it (the sandbox, or an account connected by number only), the chat account whose number equals
`metadata.display_phone_number`. Both lookups are single-field index reads across organisations; the
active/platform checks are done in Python on the (at most a few) accounts found. A number connected in
more than one organisation without a provider id is ambiguous and routed nowhere (logged): a webhook
never lands in an organisation it may not belong to.

`route` resolves a whole batch: it keeps each routing (metadata ids to account and organisation) in
this process while the organisation's token (resolvers/auth/cache.py) is unchanged, checking the
tokens of every organisation in the batch in one Redis round trip, so a warm batch reads no account
and no organisation from the database. Connecting or changing an account and changing an
organisation replace its token.
"""
from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from typing import Any

from leadline.models.auth import Organisation
from leadline.models.channels import ChannelAccount
from leadline.resolvers.auth.cache import org_token_key
from leadline.resolvers.context import OrgSnapshot, RequestContext, Services
from leadline.resolvers.phones import digits_only

log = logging.getLogger("leadline.chats.webhooks")
# How long a routing is kept at most, whatever the tokens say (a change made behind the service's back).
ROUTE_SECONDS = 60.0


def _usable(accounts: list[ChannelAccount]) -> list[ChannelAccount]:
    return [a for a in accounts if a.platform == "chatapp" and a.is_active]


def _ids(metadata: Any) -> tuple[str, str]:
    if not isinstance(metadata, dict):
        return "", ""
    return (str(metadata.get("phone_number_id") or "").strip(),
            digits_only(str(metadata.get("display_phone_number") or "")))


def _choose(metadata: Any, by_id: dict[str, list[ChannelAccount]],
            by_number: dict[str, list[ChannelAccount]]) -> ChannelAccount | None:
    phone_number_id, display = _ids(metadata)
    if phone_number_id:
        found = _usable(by_id.get(phone_number_id, []))
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            log.warning("phone_number_id %s is connected in %d organisations; webhook not routed",
                        phone_number_id, len(found))
            return None
    if display.isdigit():
        found = _usable(by_number.get(display, []))
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            log.warning("number %s is connected in %d organisations; webhook not routed", display, len(found))
    return None


def _group(accounts: list[ChannelAccount], attr: str) -> dict[str, list[ChannelAccount]]:
    grouped: dict[str, list[ChannelAccount]] = {}
    for account in accounts:
        grouped.setdefault(getattr(account, attr), []).append(account)
    return grouped


async def accounts_for(metadatas: list[Any]) -> list[ChannelAccount | None]:
    """The account of each change's `metadata`, for a whole batch in at most two reads."""
    ids = [_ids(m) for m in metadatas]
    phone_number_ids = sorted({i for i, _ in ids if i})
    numbers = sorted({n for _, n in ids if n.isdigit()})
    by_id = _group(await ChannelAccount.find_across_orgs(
        {"provider_phone_number_id": {"$in": phone_number_ids}}).to_list(), "provider_phone_number_id") \
        if phone_number_ids else {}
    by_number = _group(await ChannelAccount.find_across_orgs(
        {"platform": "chatapp", "number": {"$in": numbers}}).to_list(), "number") if numbers else {}
    return [_choose(m, by_id, by_number) for m in metadatas]


async def account_for(metadata: Any) -> ChannelAccount | None:
    return (await accounts_for([metadata]))[0]


async def org_contexts(services: Services, org_ids: list[Any]) -> dict[Any, RequestContext]:
    """A system context per organisation (one read for all); a missing organisation has none."""
    unique = list({org_id for org_id in org_ids})
    orgs = await Organisation.find({"_id": {"$in": unique}}).to_list() if unique else []
    return {org.id: RequestContext.system(services, OrgSnapshot(
        id=org.id, name=org.name, plan=org.plan, timezone=org.timezone, is_active=org.is_active,
        allowed_origins=tuple(org.allowed_origins))) for org in orgs}


async def org_context(services: Services, org_id: Any) -> RequestContext | None:
    return (await org_contexts(services, [org_id])).get(org_id)


@dataclass(frozen=True)
class _Route:
    account: ChannelAccount
    ctx: RequestContext
    token: str
    at: float


async def route(services: Services, metadatas: list[Any]) -> tuple[list[ChannelAccount | None],
                                                                   dict[Any, RequestContext]]:
    """Each change's account (None: unrouted) and a context per organisation, for a whole batch."""
    cache: dict[tuple[str, str], _Route] = services.org_cache.shared.setdefault("routes", {})
    keys = [_ids(m) for m in metadatas]
    held = {k: cache[k] for k in set(keys) if k in cache and time.monotonic() - cache[k].at < ROUTE_SECONDS}
    tokens = await org_tokens(services, {r.account.org_id for r in held.values()})
    found = {k: r for k, r in held.items() if tokens.get(r.account.org_id) == r.token}
    missing = [k for k in set(keys) if k not in found]
    if missing:
        metadata_of = {k: m for k, m in zip(keys, metadatas)}
        accounts = await accounts_for([metadata_of[k] for k in missing])
        contexts = await org_contexts(services, [a.org_id for a in accounts if a is not None])
        tokens = await org_tokens(services, set(contexts))
        now = time.monotonic()
        for org_id, ctx in contexts.items():
            ctx.org_token = tokens[org_id]  # the organisation's cached configuration is valid with it
        for key, account in zip(missing, accounts):
            if account is not None and account.org_id in contexts:
                found[key] = cache[key] = _Route(account, contexts[account.org_id], tokens[account.org_id], now)
    routed = [found[k].account if k in found else None for k in keys]
    return routed, {r.account.org_id: r.ctx for r in found.values()}


async def org_tokens(services: Services, org_ids: set[Any]) -> dict[Any, str]:
    """The current token of each organisation, created where Redis has none (one round trip)."""
    if not org_ids:
        return {}
    ids = list(org_ids)
    prefix = services.settings.redis_prefix
    pipe = services.redis.pipeline(transaction=False)
    for org_id in ids:
        pipe.set(org_token_key(prefix, org_id), uuid.uuid4().hex, nx=True)
    for org_id in ids:
        pipe.get(org_token_key(prefix, org_id))
    values = (await pipe.execute())[len(ids):]
    return {org_id: v.decode() if isinstance(v, bytes) else v for org_id, v in zip(ids, values)}
