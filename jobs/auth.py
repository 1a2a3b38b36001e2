"""Auth jobs: copying keys' last-use times from Redis (written by the rate gate) to the database."""
from __future__ import annotations

from datetime import datetime, timezone

from bson import ObjectId
from pymongo import UpdateOne

from leadline.models.auth import ApiKey
from leadline.resolvers.auth.gate import last_used_key


async def flush_key_last_used(ctx: dict) -> int:
    """Idempotent: `$max` never moves a last-used time backwards, so reruns change nothing."""
    services = ctx["services"]
    entries = await services.redis.hgetall(last_used_key(services.settings.redis_prefix))
    ops = []
    for raw_id, raw_us in entries.items():
        key_id = raw_id.decode() if isinstance(raw_id, bytes) else raw_id
        if not ObjectId.is_valid(key_id):
            continue
        try:  # float(): values written before the gate formatted them are in scientific notation
            when = datetime.fromtimestamp(int(float(raw_us)) / 1_000_000, tz=timezone.utc)
        except (TypeError, ValueError, OverflowError):
            continue
        ops.append(UpdateOne({"_id": ObjectId(key_id)}, {"$max": {"last_used_at": when}}))
    if ops:
        # A system job across organisations: it addresses keys by id only.
        await ApiKey.bulk_write_across_orgs(ops)
    return len(ops)
