"""Operator actions on organisations and keys (behind `leadline admin`; the dashboard later).

Every change that affects authentication invalidates the organisation's cached keys in all
processes through `invalidate_org`.
"""
from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bson import ObjectId

from leadline.models.auth import ApiKey, Organisation
from leadline.models.base import utcnow
from leadline.models.billing import Subscription
from leadline.resolvers.auth.cache import invalidate_org
from leadline.resolvers.auth.keys import display_prefix, hash_key, new_legacy_key, new_scoped_key
from leadline.resolvers.auth.scopes import parse_scopes
from leadline.resolvers.billing.plans import PLANS
from leadline.resolvers.context import RequestContext

MAX_ACTIVE_SCOPED_KEYS = 10


class AdminError(ValueError):
    """An operator request that cannot be carried out; the message says why."""


def _org_id(raw: str) -> ObjectId:
    if not ObjectId.is_valid(raw):
        raise AdminError(f"'{raw}' is not an organisation id (24 hexadecimal characters)")
    return ObjectId(raw)


async def get_org(raw_id: str) -> Organisation:
    org = await Organisation.get(_org_id(raw_id))
    if org is None:
        raise AdminError(f"no organisation with id {raw_id}")
    return org


def _check_plan(plan: str) -> str:
    if plan not in PLANS:
        raise AdminError(f"unknown plan '{plan}' (one of: {', '.join(PLANS)})")
    return plan


def _check_timezone(tz: str) -> str:
    try:
        ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise AdminError(f"unknown IANA time zone '{tz}'") from None
    return tz


async def create_org(name: str, plan: str = "free", timezone: str = "UTC") -> dict:
    if not name.strip():
        raise AdminError("the organisation needs a name")
    org = Organisation(name=name.strip(), plan=_check_plan(plan), timezone=_check_timezone(timezone))
    await org.insert()
    await _record_subscription(org)
    raw = new_legacy_key()
    await ApiKey(org_id=org.id, kind="legacy", key_hash=hash_key(raw), prefix=display_prefix(raw),
                 label="legacy", scopes=["*"]).insert()
    return {"orgId": str(org.id), "legacyKey": raw}


async def create_key(org_raw: str, scopes: str, label: str | None = None) -> dict:
    org = await get_org(org_raw)
    try:
        scope_list = parse_scopes(scopes)
    except ValueError as exc:
        raise AdminError(str(exc)) from None
    active = await ApiKey.count_in(org.id, {"kind": "scoped", "revoked_at": None})
    if active >= MAX_ACTIVE_SCOPED_KEYS:
        raise AdminError(f"the organisation already has {active} active scoped keys (at most {MAX_ACTIVE_SCOPED_KEYS})")
    raw = new_scoped_key()
    key = ApiKey(org_id=org.id, kind="scoped", key_hash=hash_key(raw), prefix=display_prefix(raw),
                 label=label, scopes=scope_list)
    await key.insert()
    return {"keyId": str(key.id), "key": raw}


async def revoke_key(redis, prefix: str, org_raw: str, key_raw: str) -> dict:
    org = await get_org(org_raw)
    key = await ApiKey.get_in(org.id, key_raw)
    if key is None:
        raise AdminError(f"no key {key_raw} in organisation {org_raw}")
    if key.revoked_at is None:
        key.revoked_at = utcnow()
        await key.save()
    await invalidate_org(redis, prefix, org.id)
    return {"keyId": str(key.id), "revoked": True}


async def list_keys(org_raw: str) -> list[dict]:
    """The organisation's keys, oldest first, without their secrets (`leadline admin list-keys`)."""
    org = await get_org(org_raw)
    return [key_row(key) for key in await keys_of(org.id)]


async def keys_of(org: ObjectId | RequestContext) -> list[ApiKey]:
    return await ApiKey.find_in(org).sort("created_at").to_list()


def key_row(key: ApiKey) -> dict:
    def iso(value):
        return value.isoformat().replace("+00:00", "Z") if value else None

    return {"keyId": str(key.id), "kind": key.kind, "label": key.label, "prefix": key.prefix,
            "scopes": list(key.scopes) if key.kind == "scoped" else ["*"], "createdAt": iso(key.created_at),
            "lastUsedAt": iso(key.last_used_at), "revoked": key.revoked_at is not None}


async def _update_org(redis, prefix: str, org: Organisation, **changes) -> None:
    """Save operator changes and make every API process reload the organisation's keys."""
    for name, value in changes.items():
        setattr(org, name, value)
    org.updated_at = utcnow()
    await org.save()
    await invalidate_org(redis, prefix, org.id)


async def set_plan(redis, prefix: str, org_raw: str, plan: str) -> dict:
    org = await get_org(org_raw)
    await _update_org(redis, prefix, org, plan=_check_plan(plan))
    await _record_subscription(org)
    return {"orgId": str(org.id), "plan": org.plan}


async def set_org_active(redis, prefix: str, org_raw: str, active: bool) -> dict:
    org = await get_org(org_raw)
    await _update_org(redis, prefix, org, is_active=active)
    return {"orgId": str(org.id), "isActive": active}


async def set_allowed_origins(redis, prefix: str, org_raw: str, origins: str) -> dict:
    org = await get_org(org_raw)
    items = [o.strip().rstrip("/") for o in origins.split(",") if o.strip()]
    for item in items:
        scheme = item.split("://", 1)[0] if "://" in item else None
        if " " in item or scheme not in (None, "http", "https"):
            raise AdminError(f"'{item}' is not an origin like https://app.example.com")
    await _update_org(redis, prefix, org, allowed_origins=items)
    return {"orgId": str(org.id), "allowedOrigins": items}


async def _record_subscription(org: Organisation) -> None:
    """Plan changes made by an operator show up as subscription rows, like paid ones would."""
    now = utcnow()
    previous = await Subscription.find_in(org.id, {"status": "active"}).to_list()
    for sub in previous:
        sub.status = "cancelled"
        sub.end_date = now
        sub.updated_at = now
        await sub.save()
    plan = PLANS[org.plan]
    await Subscription(org_id=org.id, plan_id=plan.id, plan_name=plan.name, billing_cycle="monthly",
                       status="active", payment_status="waived" if plan.monthly_price else "free",
                       start_date=now).insert()
