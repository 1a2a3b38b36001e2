"""Operator commands of the spine: organisations, keys, channels, wallets, dead letters.

The domain code each command runs is imported inside it, so `leadline admin --help` and building the
parser import nothing heavy (docs/cli.md).
"""
from __future__ import annotations

import argparse

from leadline.admin import AdminEnv, command
from leadline.resolvers.auth.scopes import FULL_ACCESS, SCOPES

PLANS = ["free", "growth", "pro", "business"]


def _bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError("expected true or false")


def _org(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--org", required=True, help="the organisation's id (the orgId create-org printed)")


def scopes_help() -> str:
    return (f"comma-separated scopes, or {FULL_ACCESS} for full access; one of: " + ", ".join(sorted(SCOPES)))


@command("create-org", "create an organisation and its legacy key", arguments=lambda p: (
    p.add_argument("--name", required=True, help="the organisation's display name"),
    p.add_argument("--plan", default="free", choices=PLANS, help="billing plan (limits, features, rate limits)"),
    p.add_argument("--timezone", default="UTC", help="IANA time zone for schedules and daily insights")))
async def create_org(args, env: AdminEnv):
    from leadline.resolvers.auth import admin

    return await admin.create_org(args.name, args.plan, args.timezone)


@command("create-key", "create a scoped API key (shown once; the scopes are listed under --scopes)",
         arguments=lambda p: (
             _org(p), p.add_argument("--scopes", required=True, help=scopes_help()),
             p.add_argument("--label", help="a name to recognise the key by in list-keys")))
async def create_key(args, env: AdminEnv):
    from leadline.resolvers.auth import admin

    return await admin.create_key(args.org, args.scopes, args.label)


@command("list-keys", "the organisation's keys with their last use", arguments=_org)
async def list_keys(args, env: AdminEnv):
    from leadline.resolvers.auth import admin

    return await admin.list_keys(args.org)


@command("revoke-key", "revoke a key (effective at once everywhere)", needs_redis=True, arguments=lambda p: (
    _org(p), p.add_argument("--key-id", required=True, help="the keyId create-key or list-keys printed")))
async def revoke_key(args, env: AdminEnv):
    from leadline.resolvers.auth import admin

    return await admin.revoke_key(env.redis, env.prefix, args.org, args.key_id)


@command("set-plan", "change the organisation's plan", needs_redis=True, arguments=lambda p: (
    _org(p), p.add_argument("--plan", required=True, choices=PLANS, help="the new plan")))
async def set_plan(args, env: AdminEnv):
    from leadline.resolvers.auth import admin

    return await admin.set_plan(env.redis, env.prefix, args.org, args.plan)


@command("set-org-active", "activate or deactivate the organisation", needs_redis=True, arguments=lambda p: (
    _org(p), p.add_argument("--active", required=True, type=_bool, help="true or false")))
async def set_org_active(args, env: AdminEnv):
    from leadline.resolvers.auth import admin

    return await admin.set_org_active(env.redis, env.prefix, args.org, args.active)


@command("set-allowed-origins", "the browser origins allowed to call the API", needs_redis=True,
         arguments=lambda p: (_org(p), p.add_argument("--origins", required=True,
                                                      help='comma-separated origins, e.g. "https://a,https://b"')))
async def set_allowed_origins(args, env: AdminEnv):
    from leadline.resolvers.auth import admin

    return await admin.set_allowed_origins(env.redis, env.prefix, args.org, args.origins)


@command("connect-channel", "connect (or update) a channel account", arguments=lambda p: (
    _org(p),
    p.add_argument("--platform", required=True, choices=["chatapp", "photoapp", "pageapp"], help="the channel"),
    p.add_argument("--number", required=True,
                   help="chatapp: the business phone number (digits); photoapp/pageapp: the account or page id"),
    p.add_argument("--business-name", help="the business name shown with the channel"),
    p.add_argument("--review-status", default="APPROVED", choices=["APPROVED", "PENDING", "REJECTED"],
                   help="the business account's review status (templates need APPROVED)"),
    p.add_argument("--provider", choices=["sandbox", "meta"], help="adapter for this account (default: LEADLINE_PROVIDER)"),
    p.add_argument("--provider-id", help="provider phone-number id (chatapp) or account/page id"),
    p.add_argument("--provider-account-id", help="provider business account id (chatapp: the WABA id)"),
    p.add_argument("--access-token", help="provider access token"),
    p.add_argument("--mps", type=int, help="the number's messages per second (default: the provider's)"),
    p.add_argument("--messaging-tier", choices=["TIER_250", "TIER_1K", "TIER_2K", "TIER_10K", "TIER_100K",
                                                "TIER_UNLIMITED"], help="unique recipients per 24 hours")))
async def connect(args, env: AdminEnv):
    from leadline.resolvers.channels.admin import connect_channel

    return await connect_channel(args.org, args.platform, args.number, args.business_name, args.review_status,
                                 provider=args.provider, provider_id=args.provider_id, access_token=args.access_token,
                                 provider_account_id=args.provider_account_id, messages_per_second=args.mps,
                                 messaging_tier=args.messaging_tier, redis=env.redis, prefix=env.prefix)


@command("set-wallet", "set the prepaid wallet", arguments=lambda p: (
    _org(p), p.add_argument("--balance", required=True, help="balance in USD, e.g. 12.50"),
    p.add_argument("--active", type=_bool, default=True, help="whether the wallet is active (true or false)")))
async def wallet(args, env: AdminEnv):
    from leadline.resolvers.billing.admin import set_wallet

    return await set_wallet(args.org, args.balance, args.active)


@command("dead-letters", "jobs and queued changes that failed for good; --retry ID offers one again",
         needs_services=True, arguments=lambda p: (
             p.add_argument("--retry", metavar="ID", help="offer this dead letter again"),
             p.add_argument("--limit", type=int, default=100, help="how many of the most recent to list")))
async def dead_letters(args, env: AdminEnv):
    from leadline.resolvers import deadletters
    from leadline.resolvers.auth import admin

    if args.retry:
        try:
            letter = await deadletters.retry(env.services, args.retry)
        except LookupError as exc:
            raise admin.AdminError(str(exc)) from None
        return {"deadLetterId": str(letter.id), "retried": True}
    return [deadletters.row(letter) for letter in await deadletters.recent(args.limit)]
