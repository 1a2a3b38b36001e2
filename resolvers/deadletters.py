"""The dead-letter store: jobs and queued entries that failed for good, listed and offered again by an
operator (`leadline admin dead-letters [--retry ID]`).

A job lands here when it raised (arq does not retry an ordinary exception) or ran out of tries; a
stream entry when it was delivered too often without being acknowledged (resolvers/streams.py).
Retrying enqueues the job again with its arguments, or puts the entry back on its stream.
"""
from __future__ import annotations

import logging
from typing import Any

from bson import ObjectId

from leadline.models.base import utcnow
from leadline.models.deadletters import DeadLetter

log = logging.getLogger("leadline.deadletters")


async def record(kind: str, name: str, payload: dict[str, Any], error: str, attempts: int) -> DeadLetter:
    letter = DeadLetter(kind=kind, name=name, payload=payload, error=error[:4000], attempts=attempts)
    await letter.insert()
    log.error("%s %s failed for good after %d attempt(s): %s", kind, name, attempts, error[:500],
              extra={"dead_letter": str(letter.id)})
    return letter


def row(letter: DeadLetter) -> dict[str, Any]:
    return {"deadLetterId": str(letter.id), "kind": letter.kind, "name": letter.name, "payload": letter.payload,
            "error": letter.error, "attempts": letter.attempts,
            "createdAt": letter.created_at.isoformat().replace("+00:00", "Z"),
            "retriedAt": letter.retried_at.isoformat().replace("+00:00", "Z") if letter.retried_at else None}


async def recent(limit: int = 100) -> list[DeadLetter]:
    return await DeadLetter.find_all().sort("-created_at").limit(limit).to_list()


async def retry(services: Any, letter_id: str) -> DeadLetter:
    """Offer the work again; LookupError when there is no such dead letter."""
    letter = await DeadLetter.get(ObjectId(letter_id)) if ObjectId.is_valid(letter_id) else None
    if letter is None:
        raise LookupError(f"no dead letter {letter_id}")
    if letter.kind == "job":
        await services.arq.enqueue_job(letter.name, *letter.payload.get("args", []), **letter.payload.get("kwargs", {}))
    else:
        await services.stream(letter.name).add([letter.payload])
    letter.retried_at = utcnow()
    await letter.save()
    return letter
