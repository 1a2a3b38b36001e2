"""Template jobs: the sandbox's simulated review, run once its delay has passed.

Enqueued with `_job_id` = `sandbox_template_review:{template id}` (one review per template) and
`_defer_by` = the configured delay. Idempotent: it applies only while the template is PENDING.
"""
from __future__ import annotations

from leadline.resolvers.templates.review import apply_sandbox_decision


async def sandbox_template_review(ctx: dict, org_id: str, template_db_id: str, decision: str,
                                  reason: str | None) -> bool:
    return await apply_sandbox_decision(ctx["services"], org_id, template_db_id, decision, reason)
