"""Work that fails for good is kept, with its error and attempts, where an operator can see it and offer
it again: jobs (through a real arq worker), queued stream entries (delivered too often), and the
`leadline admin dead-letters` and `list-keys` commands as an operator runs them."""
from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys

from leadline.models.deadletters import DeadLetter
from leadline.resolvers import deadletters
from leadline.resolvers.streams import WorkStream


async def test_a_failing_job_is_logged_and_kept_then_retried(services, run_worker, caplog):
    await services.arq.enqueue_job("recount_contact_terms", "not-an-org-id")
    with caplog.at_level(logging.ERROR, logger="leadline"):
        await run_worker()
    [letter] = await DeadLetter.find_all().to_list()
    assert (letter.kind, letter.name, letter.payload, letter.attempts) == (
        "job", "recount_contact_terms", {"args": ["not-an-org-id"], "kwargs": {}}, 1)
    assert "not-an-org-id" in letter.error and "InvalidId" in letter.error
    assert any(r.levelno == logging.ERROR and "recount_contact_terms" in r.getMessage() for r in caplog.records)
    await deadletters.retry(services, str(letter.id))
    assert [j.function for j in await services.arq.queued_jobs()] == ["recount_contact_terms"]
    assert (await DeadLetter.get(letter.id)).retried_at is not None


async def test_a_stream_entry_delivered_too_often_is_dead_lettered_then_offered_again(services):
    stream = WorkStream(services.redis, services.rkey("stream", "test"), name="test", stale_ms=30, max_deliveries=2)
    await stream.add([{"work": 1}])
    for _ in range(2):  # claimed and never acknowledged: a consumer that keeps dying on it
        assert len(await stream.claim("c", 10)) == 1
        await asyncio.sleep(0.05)
        stream._next_stale_check = 0
    assert await stream.claim("c", 10) == []  # the third delivery goes to the dead letters instead
    [letter] = await DeadLetter.find_all().to_list()
    assert (letter.kind, letter.name, letter.payload, letter.attempts) == ("stream", "test", {"work": 1}, 3)
    assert await stream.backlog() == 0
    services._streams["test"] = stream
    await deadletters.retry(services, str(letter.id))
    [entry] = await stream.claim("c", 10)
    assert entry.payload == {"work": 1}


def admin(settings, *args: str):
    env = {**os.environ, "MONGODB_URL": settings.mongodb_url, "REDIS_URL": settings.redis_url,
           "MONGODB_DATABASE": settings.database_name, "LEADLINE_REDIS_PREFIX": settings.redis_prefix}
    proc = subprocess.run([sys.executable, "-m", "leadline.cli", "admin", *args], env=env, capture_output=True,
                          text=True, timeout=60)
    return proc.returncode, json.loads(proc.stdout) if proc.stdout.strip() else None, proc.stderr


async def test_the_operator_lists_dead_letters_and_keys(services, settings, tenant, run_worker):
    await services.arq.enqueue_job("recount_contact_terms", "bad")
    await run_worker()
    loop = asyncio.get_running_loop()
    code, listed, _ = await loop.run_in_executor(None, admin, settings, "dead-letters")
    assert code == 0 and [(d["kind"], d["name"]) for d in listed] == [("job", "recount_contact_terms")]
    code, retried, _ = await loop.run_in_executor(None, admin, settings, "dead-letters", "--retry", listed[0]["deadLetterId"])
    assert code == 0 and retried == {"deadLetterId": listed[0]["deadLetterId"], "retried": True}
    code, _, err = await loop.run_in_executor(None, admin, settings, "dead-letters", "--retry", "0" * 24)
    assert code == 2 and err.startswith("leadline admin: no dead letter")
    await tenant.key("contacts:read", label="crm")
    code, keys, _ = await loop.run_in_executor(None, admin, settings, "list-keys", "--org", tenant.org_id)
    assert code == 0 and [(k["kind"], k["label"], k["scopes"]) for k in keys] == [
        ("legacy", "legacy", ["*"]), ("scoped", "crm", ["contacts:read"])]
    assert set(keys[0]) == {"keyId", "kind", "label", "prefix", "scopes", "createdAt", "lastUsedAt", "revoked"}
