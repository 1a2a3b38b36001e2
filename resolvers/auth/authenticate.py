"""Turning an Authorization header (and Origin) into a request context, or a refusal.

Order of checks: key present → key known and not revoked → organisation resolvable and
active → origin allowed → rate limits. Scopes are checked per operation (scopes.py).
"""
from __future__ import annotations

import hmac
import logging
import time
from dataclasses import dataclass

from leadline.models.auth import ApiKey, Organisation
from leadline.resolvers.auth.cache import CachedAuth, current_org_token, org_token_key
from leadline.resolvers.auth.gate import GateResult
from leadline.resolvers.auth.keys import hash_key, looks_like_key
from leadline.resolvers.billing.plans import plan_for
from leadline.resolvers.context import KeySnapshot, OrgSnapshot, RequestContext, Services
from leadline.resolvers.errors import ApiError

log = logging.getLogger(__name__)


@dataclass
class Authenticated:
    ctx: RequestContext
    gate: GateResult


def bearer_token(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return value.strip() or None


def normalise_origin(origin: str) -> str:
    return origin.strip().rstrip("/").lower()


def origin_allowed(origin: str | None, allowed: tuple[str, ...]) -> bool:
    """No list, or no Origin (server-to-server), passes; a bare host allows http and https."""
    if not allowed or not origin:
        return True
    origin = normalise_origin(origin)
    host = origin.split("://", 1)[-1]
    for entry in allowed:
        entry = normalise_origin(entry)
        if entry == origin or ("://" not in entry and entry == host):
            return True
    return False


async def _load(services: Services, key_hash: str) -> CachedAuth:
    stored = await ApiKey.find_one_across_orgs({"key_hash": key_hash})
    if stored is None or not hmac.compare_digest(stored.key_hash, key_hash) or stored.revoked_at is not None:
        raise ApiError("INVALID_API_KEY", "The API key is unknown or has been revoked.")
    org = await Organisation.get(stored.org_id)
    if org is None:
        raise ApiError("ORG_ID_REQUIRED", "The organisation of this API key could not be resolved.")
    token = await current_org_token(services.redis, services.settings.redis_prefix, org.id)
    return CachedAuth(
        org=OrgSnapshot(
            id=org.id, name=org.name, plan=org.plan, timezone=org.timezone, is_active=org.is_active,
            allowed_origins=tuple(org.allowed_origins),
        ),
        key=KeySnapshot(id=stored.id, kind=stored.kind, scopes=frozenset(stored.scopes), label=stored.label),
        token=token,
        loaded_at=time.monotonic(),
    )


def _key_hash(authorization: str | None) -> str:
    raw = bearer_token(authorization)
    if raw is None:
        raise ApiError("API_KEY_MISSING", "Send the API key as 'Authorization: Bearer <API_KEY>'.")
    if not looks_like_key(raw):
        raise ApiError("INVALID_API_KEY", "The API key is unknown or has been revoked.")
    return hash_key(raw)


def _admitted_org(entry: CachedAuth, origin: str | None) -> None:
    """The organisation's own refusals: inactive, or a browser origin it does not allow."""
    if not entry.org.is_active:
        raise ApiError("ORG_INACTIVE", "This organisation is inactive.")
    if not origin_allowed(origin, entry.org.allowed_origins):
        raise ApiError("DOMAIN_NOT_WHITELISTED", f"Requests from origin '{origin}' are not allowed for this organisation.")


async def authenticate(
    services: Services, authorization: str | None, origin: str | None, request_id: str | None = None
) -> Authenticated:
    key_hash = _key_hash(authorization)
    try:
        entry = services.key_cache.get(key_hash)
        if entry is None:
            entry = await _load(services, key_hash)
            services.key_cache.put(key_hash, entry)
        gate = await _admit(services, entry)
        if gate.token != entry.token:
            # Something about this organisation changed since we cached it: reload and re-check.
            services.key_cache.drop(key_hash)
            entry = await _load(services, key_hash)
            services.key_cache.put(key_hash, entry)
            if gate.outcome == "ok" and _limits_of(entry) != (gate.per_second_limit, gate.per_day_limit):
                gate = await _admit(services, entry)
    except ApiError:
        raise
    except Exception:
        log.exception("authentication failed")
        raise ApiError("AUTHENTICATION_FAILED", "Authentication could not be completed; try again.") from None
    _admitted_org(entry, origin)
    ctx = RequestContext(services=services, org=entry.org, key=entry.key, request_id=request_id,
                         org_token=gate.token or None)
    return Authenticated(ctx, gate)


async def identify(services: Services, authorization: str | None, origin: str | None,
                   request_id: str | None = None) -> RequestContext:
    """The key's context without charging its rate limits: what a long-lived connection (the MCP server's
    sessions) checks on each message it carries, each operation it then runs being charged as a request
    by `authenticate`. The same refusals as `authenticate` otherwise; a cached entry is checked against
    the organisation's current token, so a revoked key is refused on its next message."""
    key_hash = _key_hash(authorization)
    try:
        entry = services.key_cache.get(key_hash)
        if entry is not None:
            token = await services.redis.get(org_token_key(services.settings.redis_prefix, entry.org.id))
            if (token.decode() if isinstance(token, bytes) else token) != entry.token:
                services.key_cache.drop(key_hash)
                entry = None
        if entry is None:
            entry = await _load(services, key_hash)
            services.key_cache.put(key_hash, entry)
    except ApiError:
        raise
    except Exception:
        log.exception("authentication failed")
        raise ApiError("AUTHENTICATION_FAILED", "Authentication could not be completed; try again.") from None
    _admitted_org(entry, origin)
    return RequestContext(services=services, org=entry.org, key=entry.key, request_id=request_id,
                          org_token=entry.token or None)


def _limits_of(entry: CachedAuth) -> tuple[int, int]:
    limits = plan_for(entry.org.plan).limits
    return limits["api_rate_limit_per_sec"], limits["api_rate_limit_per_day"]


async def _admit(services: Services, entry: CachedAuth) -> GateResult:
    per_sec, per_day = _limits_of(entry)
    return await services.gate.admit(entry.key.id, entry.org.id, per_sec, per_day)


async def charge(ctx: RequestContext, cost: int) -> GateResult:
    """Charge `cost` more units to the request's key, all or none (a GraphQL request's root fields beyond
    the first, which authentication charged). RATE_LIMIT_EXCEEDED_* when a window cannot take them all;
    VALIDATION_ERROR when the request alone holds more root fields than the plan's per-second limit (it
    could never be admitted: split it)."""
    per_sec, per_day = _limits_of_plan(ctx.org.plan)
    if cost + 1 > per_sec:
        raise ApiError("VALIDATION_ERROR", f"This request holds {cost + 1} root fields, more than the "
                                           f"{per_sec} requests per second of this key's plan; split it.")
    gate = await ctx.services.gate.admit(ctx.key.id, ctx.org.id, per_sec, per_day, cost=cost)
    if gate.outcome != "ok":
        raise rate_limit_error(gate)
    return gate


def _limits_of_plan(plan: str) -> tuple[int, int]:
    limits = plan_for(plan).limits
    return limits["api_rate_limit_per_sec"], limits["api_rate_limit_per_day"]


def rate_limit_error(gate: GateResult) -> ApiError:
    headers = {"Retry-After": str(gate.retry_after), **gate.headers()}
    if gate.outcome == "per_second":
        return ApiError("RATE_LIMIT_EXCEEDED_PER_SECOND",
                        f"More than {gate.per_second_limit} requests in one second for this API key.", headers=headers)
    return ApiError("RATE_LIMIT_EXCEEDED_PER_DAY",
                    f"More than {gate.per_day_limit} requests in 24 hours for this API key.", headers=headers)
