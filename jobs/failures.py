"""Jobs that fail for good are logged at error level and kept in the dead-letter store.

arq fails a job on an ordinary exception (only `Retry` runs it again) and gives up on a `Retry` past
`max_tries`; either way the work would be gone without a trace but a log line. `recorded` wraps every
task and cron job: such a failure is logged with the job's name and kept, with its arguments, error and
attempts, for `leadline admin dead-letters [--retry ID]` (resolvers/deadletters.py).
"""
from __future__ import annotations

import functools
import logging
import traceback
from typing import Any, Awaitable, Callable

from arq.worker import Retry

from leadline.resolvers import deadletters

log = logging.getLogger("leadline.jobs")

Job = Callable[..., Awaitable[Any]]


def recorded(fn: Job, *, max_tries: int) -> Job:
    @functools.wraps(fn)
    async def run(ctx: dict, *args: Any, **kwargs: Any) -> Any:
        attempt = ctx.get("job_try", 1)
        try:
            return await fn(ctx, *args, **kwargs)
        except Retry:
            if attempt < max_tries:
                raise
            await _dead(fn, args, kwargs, f"still asking to be retried after {attempt} tries", attempt)
            raise
        except Exception as exc:
            log.error("job %s failed: %s", fn.__name__, exc, exc_info=True, extra={"job_id": ctx.get("job_id")})
            await _dead(fn, args, kwargs, "".join(traceback.format_exception_only(exc)).strip(), attempt)
            raise

    return run


async def _dead(fn: Job, args: tuple, kwargs: dict, error: str, attempts: int) -> None:
    try:
        await deadletters.record("job", fn.__name__, {"args": list(args), "kwargs": kwargs}, error, attempts)
    except Exception:  # the store itself failing must not hide the job's own failure
        log.exception("could not keep the failed job %s in the dead-letter store", fn.__name__)
