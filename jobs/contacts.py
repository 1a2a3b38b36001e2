"""Contacts jobs: rebuilding the per-term contact counts the filter's totals come from.

`recount_contact_terms(org_id)` repairs one organisation (idempotent: it writes only the counts that
differ from its contacts). The nightly cron `recount_all_contact_terms` offers it for every
organisation that has contacts, under a per-day job id so a re-run the same day queues nothing twice.
"""
from __future__ import annotations

from bson import ObjectId

from leadline.models.base import utcnow
from leadline.models.contacts import ContactCounter
from leadline.resolvers.contacts import term_counts

RECOUNT_JOB = "recount_contact_terms"


async def recount_contact_terms(ctx: dict, org_id: str) -> dict[str, int]:
    return await term_counts.recount(ObjectId(org_id))


async def recount_all_contact_terms(ctx: dict) -> int:
    arq = ctx["services"].arq
    day = utcnow().date().isoformat()
    # Every organisation with contacts has a counter document; a system job reads across organisations.
    counters = await ContactCounter.find_across_orgs({}).to_list()
    for counter in counters:
        await arq.enqueue_job(RECOUNT_JOB, str(counter.org_id), _job_id=f"{RECOUNT_JOB}:{counter.org_id}:{day}")
    return len(counters)
