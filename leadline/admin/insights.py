"""Operator commands of the insights domain (`leadline admin ...`), declared with `@command`."""
from __future__ import annotations

from datetime import date

from leadline.admin import AdminEnv, command


@command("run-rollups", "compute one day's insights rollups and pipeline snapshot for an organisation "
                        "(default: its today); prints {summaries, snapshots}",
         arguments=lambda p: (p.add_argument("--org", required=True, help="the organisation's id"),
                              p.add_argument("--date", help="YYYY-MM-DD, the organisation's local day")))
async def run_rollups(args, env: AdminEnv):
    from leadline.resolvers.auth.admin import AdminError, get_org
    from leadline.resolvers.insights import days
    from leadline.resolvers.insights.runs import run_day

    org = await get_org(args.org)
    if args.date is None:
        day = days.today(org.timezone)
    else:
        try:
            day = date.fromisoformat(args.date) if len(args.date) == 10 else None
        except ValueError:
            day = None
        if day is None:
            raise AdminError(f"--date must be a date as YYYY-MM-DD (got '{args.date}')")
        try:
            days.bounds(day, org.timezone)
        except OverflowError:
            raise AdminError(f"--date {args.date} is outside the years 1-9999 in the organisation's time zone") from None
    return await run_day(org.id, org.timezone, day)
