"""The delivery engine each worker runs beside arq (jobs/events.py): outbox to deliveries, deliveries to
endpoints, outcomes to the log. At least once, and no endpoint waits for another.

Four loops share one HTTP session:
- the **dispatcher** (one worker at a time, a Redis lease) reads the outbox READ_AHEAD events at a time,
  takes them DISPATCH_BATCH at a time and hands one *fresh* delivery per subscribed endpoint to the lanes. A fresh delivery's first attempt
  is made before it is written: its record is inserted with that attempt's outcome (one write instead of
  an insert and an update), and the event is marked dispatched once all its deliveries are written. A
  worker that dies before that leaves the event in the outbox: it is dispatched again (the same
  `webhook-id`), and a record written twice is refused by its derived id;
- the **sweeper** (every worker) reads deliveries whose `due_at` has passed (a retry's time, a replay, a
  dead claimer's lease, a delivery that waited for room) and claims them in one bulk write, each
  conditional on the claim it read;
- **lanes**, one per endpoint, each sending at most `webhook_endpoint_concurrency` attempts at once and
  holding at most HOLD deliveries (the dispatcher fills HOLD - RESERVE: due ones always find room): a
  slow or dead endpoint fills its own lane only. The dispatcher waits up to FULL_WAIT for a full lane
  (a responsive endpoint drains fast); then, or at once for an endpoint that did not answer lately, what
  does not fit is written as due and waits in the database, and the outbox moves on;
- the **flusher** writes outcomes in bulk (claimed ones conditional on this worker's claim): delivered,
  the next attempt's time (deliveries.py: the retry schedule), or failed; and the endpoint's state (410
  disables it at once, five days of failures without a success disables it).
A live worker renews the lease of claimed deliveries it holds longer than a third of it, so only a dead
worker's deliveries are taken over (after `webhook_lease_seconds`): a `kill -9` loses nothing.
"""
from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from bson import ObjectId
from pymongo import UpdateOne

from leadline.models.base import utcnow
from leadline.models.events import NEVER, DomainEvent, WebhookDelivery, WebhookEndpoint
from leadline.resolvers.context import Services
from leadline.resolvers.events import deliveries as rules
from leadline.resolvers.events import dispatch, signing
from leadline.resolvers.events.dispatch import aware as _aware
from leadline.resolvers.netguard import BlockedAddress, GuardedResolver, blocked_cause, check_host
from leadline.resolvers.secrets import SecretUnreadable, keyring

log = logging.getLogger("leadline.events")

DISPATCH_BATCH = 500
SWEEP_BATCH = 200
HOLD = 500  # deliveries one worker holds per endpoint (queued and in flight)
RESERVE = 100  # of which the dispatcher leaves this many to due deliveries (retries, a backlog): no starving
# What a full lane cannot take waits in the outbox while the lane drains (a responsive endpoint), but is
# written to the database at once when the lane has been full for FULL_WAIT seconds or the endpoint did
# not answer lately (within SLOW_FOR seconds): the outbox never waits long for one endpoint.
FULL_WAIT = 0.5
SLOW_FOR = 30.0
MAX_DISPATCHING = 5000  # events whose fresh deliveries are not all written yet
READ_AHEAD = 2000  # outbox events read at once
# A due delivery whose lane is full is looked at again after DEFER (the n-th of an endpoint's n * STAGGER
# later: a backlog comes due a little at a time, not all at once again).
DEFER = timedelta(seconds=10)
STAGGER = timedelta(milliseconds=50)
FULL_PAUSE = 2.0  # the sweeper's pause when every due delivery it found waits for a full lane
IDLE_POLL = 0.05  # the dispatcher's look at the outbox when it was empty
SWEEP_EVERY = 0.5
ENDPOINT_FRESH = 2.0  # seconds an endpoint's cached URL, secrets and state are trusted
FAILING_LIMIT = timedelta(days=5)
LOCK_TTL_MS = 10_000
SHUTDOWN_STEP = 4.0  # seconds for each step of a shutdown (loops, attempts in flight, the last write)
DELETED = "the endpoint was deleted"

# KEYS: 1 the lock. ARGV: 1 the token, 2 the time to live (ms). Extends the lease if still ours.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


@dataclass
class Endpoint:
    """What the lanes need of an endpoint, refreshed every ENDPOINT_FRESH seconds."""

    id: ObjectId
    org_id: ObjectId
    url: str
    active: bool
    keys: list[bytes]
    failing_since: datetime | None
    loaded: float
    deleted: bool = False


@dataclass
class Held:
    """A delivery in this worker's hands: claimed in the database, or fresh (not written yet)."""

    id: ObjectId
    org_id: ObjectId
    endpoint_id: ObjectId
    event_id: ObjectId
    kind: str
    body: str
    event_at: datetime
    tries: int = 0
    attempt_count: int = 0
    replay: bool = False
    fresh: bool = False
    created_at: datetime | None = None
    since: float = field(default_factory=time.monotonic)

    @classmethod
    def of(cls, row: dict[str, Any]) -> Held:
        return cls(row["_id"], row["org_id"], row["endpoint_id"], row["event_id"], row["kind"], row["body"],
                   row["event_at"], int(row.get("tries") or 0), int(row.get("attempt_count") or 0),
                   bool(row.get("replay")))


@dataclass
class Outcome:
    held: Held
    at: datetime
    finished: datetime
    delivered: bool = False
    http_status: int | None = None
    duration_ms: int = 0
    error: str | None = None
    snippet: str | None = None
    not_sent: str | None = None  # why no attempt was made (endpoint disabled or deleted)


@dataclass
class Lane:
    queue: deque = field(default_factory=deque)
    running: int = 0
    full_since: float | None = None  # when the dispatcher found it full (None: it had room since)

    @property
    def size(self) -> int:
        return len(self.queue) + self.running


class Engine:
    def __init__(self, services: Services, stop: asyncio.Event) -> None:
        self.services = services
        self.settings = services.settings
        self.stop = stop  # the worker's: set when it shuts down
        self.stopping = asyncio.Event()  # this engine's own (never sets the worker's)
        self.token = uuid.uuid4().hex
        self.lease = timedelta(seconds=self.settings.webhook_lease_seconds)
        self.concurrency = max(1, self.settings.webhook_endpoint_concurrency)
        self.lanes: dict[ObjectId, Lane] = {}
        self.held: dict[ObjectId, Held] = {}  # claimed in the database (renewed while held)
        self.dispatching: dict[ObjectId, int] = {}  # event -> its fresh deliveries not written yet (0: to mark)
        self.to_mark: list[ObjectId] = []  # events whose deliveries are all written
        self.marked: dict[ObjectId, float] = {}  # events marked dispatched lately (monotonic time)
        self.read_ahead: deque = deque()  # outbox events read, not taken yet (the dispatcher's alone)
        self.slow_until: dict[ObjectId, float] = {}  # endpoint -> until when it counts as slow
        self.endpoints: dict[ObjectId, Endpoint] = {}
        self.loading: dict[ObjectId, asyncio.Future] = {}
        self.keys: dict[str, bytes] = {}  # sealed secret -> signing key
        self.outcomes: list[Outcome] = []
        self.outcome_ready = asyncio.Event()
        self.workers: set[asyncio.Task] = set()
        self.session: aiohttp.ClientSession | None = None
        self.lock_key = services.rkey("events", "dispatcher")
        self._renew = services.redis.register_script(_RENEW)
        self._release = services.redis.register_script(_RELEASE)
        self._has_lock = False
        self.delivered = 0  # counters for logs and benchmarks
        self.failed_attempts = 0

    # --- running ------------------------------------------------------------------------------------
    async def run(self) -> None:
        development = self.settings.is_development
        connector = aiohttp.TCPConnector(limit=0, resolver=None if development else GuardedResolver(),
                                         use_dns_cache=development)
        self.session = aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar())
        loops = [asyncio.create_task(loop()) for loop in (self._dispatcher, self._sweeper, self._renewer)]
        flusher = asyncio.create_task(self._flusher())
        try:
            await self.stop.wait()
        finally:
            await self._shutdown(loops, flusher)

    async def _shutdown(self, loops: list[asyncio.Task], flusher: asyncio.Task) -> None:
        """Within about 15 s: the loops finish the batch in hand; attempts in flight get a few seconds and
        are written; claimed deliveries not attempted (or abandoned) are handed back, due at once; fresh
        ones not written are dropped (their events are still in the outbox)."""
        self.stopping.set()
        _, late = await asyncio.wait(loops, timeout=SHUTDOWN_STEP)
        for task in late:
            task.cancel()
        for lane in self.lanes.values():
            lane.queue.clear()
        if self.workers:
            _, late = await asyncio.wait(self.workers, timeout=SHUTDOWN_STEP)
            for task in late:
                task.cancel()
        self.outcome_ready.set()
        try:
            await asyncio.wait_for(flusher, timeout=SHUTDOWN_STEP)
        except (TimeoutError, Exception):  # the database away: the leases run out, others take over
            flusher.cancel()
        try:
            if self.held:
                now = utcnow()
                await WebhookDelivery.bulk_write_across_orgs([
                    UpdateOne({"_id": h.id, "claim": self.token}, {"$set": {"claim": None, "due_at": now}})
                    for h in self.held.values()])
            if self._has_lock:
                await self._release(keys=[self.lock_key], args=[self.token])
        except Exception:  # the database or Redis away: the claims' leases run out, others take over
            log.exception("webhook engine could not hand back its deliveries; they are taken over after the lease")
        if self.session is not None:
            await self.session.close()

    async def _pause(self, seconds: float) -> None:
        try:
            await asyncio.wait_for(self.stopping.wait(), seconds)
        except TimeoutError:
            pass

    # --- the outbox ------------------------------------------------------------------------------------
    async def _hold_lock(self) -> bool:
        redis = self.services.redis
        if self._has_lock and await self._renew(keys=[self.lock_key], args=[self.token, LOCK_TTL_MS]):
            return True
        self._has_lock = bool(await redis.set(self.lock_key, self.token, nx=True, px=LOCK_TTL_MS))
        return self._has_lock

    async def _dispatcher(self) -> None:
        while not self.stopping.is_set():
            try:
                if not await self._hold_lock():
                    # Another worker dispatches now: what was read here may be dispatched there.
                    self.read_ahead.clear()
                    await self._pause(1.0)
                    continue
                taken = await self.dispatch_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("webhook dispatch failed; retrying in 1 s")
                await self._pause(1.0)
                continue
            if taken < DISPATCH_BATCH:
                await self._pause(IDLE_POLL)

    async def dispatch_once(self) -> int:
        """One batch of the outbox; returns the events taken (fewer when the full lane of a responsive
        endpoint stops the batch: the rest wait, in order, for its room)."""
        if len(self.dispatching) >= MAX_DISPATCHING:
            return 0
        if not self.read_ahead:
            # A read costs in proportion to the whole outbox (SecantusDB reads every match of a limited
            # query), so a backlog is read READ_AHEAD events at a time and taken in batches from memory.
            read_at = time.monotonic()
            rows = await DomainEvent.undispatched(READ_AHEAD + len(self.dispatching))
            # Marks that finished before this read began cannot be in it any more.
            self.marked = {k: t for k, t in self.marked.items() if t >= read_at}
            self.read_ahead.extend(e for e in rows if e["_id"] not in self.dispatching and e["_id"] not in self.marked)
        events = [self.read_ahead[i] for i in range(min(DISPATCH_BATCH, len(self.read_ahead)))]
        if not events:
            return 0
        endpoints = await dispatch.endpoints_of({e["org_id"] for e in events})
        await self._cache(endpoints)
        now = utcnow()
        room: dict[ObjectId, int] = {}
        fresh: list[Held] = []
        waiting: dict[ObjectId, int] = {}
        deferred = []
        plans: dict[ObjectId, list[dict]] = {}
        for event, endpoint in dispatch.deliveries_for(events, endpoints):
            plans.setdefault(event["_id"], []).append(endpoint)
        for index, event in enumerate(events):
            plan = plans.get(event["_id"], [])
            if any(self._full(endpoint["_id"], room) and not self._slow(endpoint["_id"]) for endpoint in plan):
                events = events[:index]  # a responsive endpoint is busy: the rest wait for its lane
                break
            waiting[event["_id"]] = 0
            for endpoint in plan:
                ep = endpoint["_id"]
                if not self._full(ep, room):
                    room[ep] -= 1
                    fresh.append(Held(dispatch.delivery_id(event["_id"], ep), event["org_id"], ep, event["_id"],
                                      event["kind"], dispatch.body_of(event), event["created_at"], fresh=True,
                                      created_at=now))
                    waiting[event["_id"]] += 1
                else:  # a slow endpoint's full lane: written now, due for whichever worker has room
                    deferred.append(dispatch.delivery(event, endpoint, claim=None, due_at=now, now=now))
        if deferred:
            await dispatch.create(deferred)
        for _ in events:
            self.read_ahead.popleft()
        for event_id, count in waiting.items():
            if count:
                self.dispatching[event_id] = count
        self._hand_over(fresh)
        done = [event_id for event_id, count in waiting.items() if not count]
        if done:
            await dispatch.mark_dispatched(done, now)
            self.marked.update((event_id, time.monotonic()) for event_id in done)
        return len(events)

    def _full(self, endpoint_id: ObjectId, room: dict[ObjectId, int]) -> bool:
        if endpoint_id not in room:
            room[endpoint_id] = HOLD - RESERVE - self._size(endpoint_id)
            lane = self.lanes.get(endpoint_id)
            if lane is not None and room[endpoint_id] > 0:
                lane.full_since = None
        return room[endpoint_id] <= 0

    def _slow(self, endpoint_id: ObjectId) -> bool:
        """A full lane that has not drained for FULL_WAIT, or an endpoint that did not answer lately: its
        backlog goes to the database instead of holding the outbox."""
        now = time.monotonic()
        if self.slow_until.get(endpoint_id, 0.0) > now:
            return True
        lane = self.lanes.get(endpoint_id)
        if lane is None:
            return False
        if lane.full_since is None:
            lane.full_since = now
        return now - lane.full_since >= FULL_WAIT

    # --- due deliveries ---------------------------------------------------------------------------------
    async def _sweeper(self) -> None:
        while not self.stopping.is_set():
            try:
                found, taken = await self.sweep_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("webhook sweep failed; retrying in 1 s")
                await self._pause(1.0)
                continue
            if found and not taken:  # every lane due work is for is full: give them time
                await self._pause(FULL_PAUSE)
            elif found < SWEEP_BATCH or taken < found:  # no hurry while lanes are full
                await self._pause(SWEEP_EVERY)

    async def sweep_once(self) -> tuple[int, int]:
        """Claim due deliveries for lanes with room (others are looked at again after DEFER); returns
        (found, claimed)."""
        now = utcnow()
        rows = [r for r in await WebhookDelivery.due(now, SWEEP_BATCH) if r["_id"] not in self.held]
        if not rows:
            return 0, 0
        room: dict[ObjectId, int] = {}
        take, defer = [], []
        for row in rows:
            ep = row["endpoint_id"]
            if ep not in room:
                room[ep] = HOLD - self._size(ep)
            if room[ep] > 0:
                take.append(row)
            else:
                defer.append((row, now + DEFER + STAGGER * -room[ep]))
            room[ep] -= 1
        until = now + self.lease
        requests = [UpdateOne({"_id": r["_id"], "claim": r.get("claim")},
                              {"$set": {"claim": self.token, "due_at": until}}) for r in take]
        requests += [UpdateOne({"_id": r["_id"], "claim": r.get("claim")}, {"$set": {"due_at": due}})
                     for r, due in defer]
        await WebhookDelivery.bulk_write_across_orgs(requests)
        mine: set = set()
        if take:
            back = await WebhookDelivery.find_raw_across_orgs_each("_id", [r["_id"] for r in take], {"claim": 1})
            mine = {b["_id"] for b in back if b.get("claim") == self.token}
            self._hand_over([Held.of(r) for r in take if r["_id"] in mine])
        return len(rows), len(mine)

    async def _renewer(self) -> None:
        """Extend the lease of deliveries held longer than a third of it (a slow endpoint's queue)."""
        every = self.lease.total_seconds() / 3
        while not self.stopping.is_set():
            await self._pause(every)
            old = [h for h in self.held.values() if time.monotonic() - h.since >= every]
            if not old:
                continue
            until = utcnow() + self.lease
            try:
                await WebhookDelivery.bulk_write_across_orgs([
                    UpdateOne({"_id": h.id, "claim": self.token}, {"$set": {"due_at": until}}) for h in old])
                for h in old:
                    h.since = time.monotonic()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("webhook claims not renewed")

    # --- lanes -------------------------------------------------------------------------------------------
    def _size(self, endpoint_id: ObjectId) -> int:
        lane = self.lanes.get(endpoint_id)
        return 0 if lane is None else lane.size

    def _lane(self, endpoint_id: ObjectId) -> Lane:
        lane = self.lanes.get(endpoint_id)
        if lane is None:
            lane = self.lanes[endpoint_id] = Lane()
        return lane

    def _hand_over(self, helds: list[Held]) -> None:
        for held in helds:
            if not held.fresh:
                self.held[held.id] = held
            lane = self._lane(held.endpoint_id)
            lane.queue.append(held)
            while lane.running < self.concurrency and lane.queue:
                lane.running += 1
                task = asyncio.create_task(self._drive(held.endpoint_id, lane))
                self.workers.add(task)
                task.add_done_callback(self.workers.discard)

    async def _drive(self, endpoint_id: ObjectId, lane: Lane) -> None:
        try:
            while lane.queue and not self.stopping.is_set():
                held = lane.queue.popleft()
                try:
                    outcome = await self.attempt(held)
                except Exception as exc:  # a bug must not strand the delivery: it is retried on schedule
                    log.exception("webhook attempt failed unexpectedly")
                    now = utcnow()
                    outcome = Outcome(held, now, now, error=f"internal error: {type(exc).__name__}")
                self.outcomes.append(outcome)
                self.outcome_ready.set()
        finally:
            lane.running -= 1
            if lane.size == 0 and self.lanes.get(endpoint_id) is lane:
                del self.lanes[endpoint_id]

    # --- one attempt ---------------------------------------------------------------------------------------
    async def attempt(self, held: Held) -> Outcome:
        endpoint = await self.endpoint(held.endpoint_id)
        now = utcnow()
        if endpoint is None or endpoint.deleted:
            return Outcome(held, now, now, not_sent=DELETED)
        if not endpoint.active:
            return Outcome(held, now, now, not_sent="the endpoint is disabled")
        timeout = self.settings.webhook_timeout_seconds
        stamp = int(time.time())
        headers = signing.headers(endpoint.keys, str(held.event_id), stamp, held.body)
        outcome = Outcome(held, now, now)
        started = time.monotonic()
        try:
            if not self.settings.is_development:
                check_host(urlsplit(endpoint.url).hostname)
            async with self.session.post(endpoint.url, data=held.body.encode(), headers=headers,
                                         allow_redirects=False, timeout=aiohttp.ClientTimeout(total=timeout)) as resp:
                outcome.http_status = resp.status
                raw = await resp.content.read(rules.SNIPPET_BYTES)
                outcome.snippet = raw[:rules.SNIPPET_BYTES].decode("utf-8", "ignore")
        except TimeoutError:
            outcome.error = f"no response within {timeout:g} s"
        except BlockedAddress as exc:
            outcome.error = f"refused: {exc}"
        except aiohttp.ClientError as exc:
            blocked = blocked_cause(exc)
            outcome.error = f"refused: {blocked}" if blocked is not None else (str(exc) or type(exc).__name__)
        except (OSError, ValueError) as exc:
            outcome.error = str(exc) or type(exc).__name__
        outcome.duration_ms = int((time.monotonic() - started) * 1000)
        if outcome.http_status is None:  # a timeout or no connection
            self.slow_until[held.endpoint_id] = time.monotonic() + SLOW_FOR
        outcome.finished = utcnow()
        outcome.delivered = outcome.http_status is not None and 200 <= outcome.http_status < 300
        if outcome.http_status is not None and not outcome.delivered and outcome.error is None:
            outcome.error = f"HTTP {outcome.http_status}"
        return outcome

    # --- endpoints -----------------------------------------------------------------------------------------
    async def endpoint(self, endpoint_id: ObjectId) -> Endpoint | None:
        cached = self.endpoints.get(endpoint_id)
        if cached is not None and time.monotonic() - cached.loaded < ENDPOINT_FRESH:
            return cached
        pending = self.loading.get(endpoint_id)
        if pending is None:
            pending = self.loading[endpoint_id] = asyncio.ensure_future(self._load(endpoint_id))
            pending.add_done_callback(lambda _: self.loading.pop(endpoint_id, None))
        try:
            await asyncio.shield(pending)
        except Exception:
            log.exception("webhook endpoint not read; using what is known")
        return self.endpoints.get(endpoint_id)

    async def _load(self, endpoint_id: ObjectId) -> None:
        rows = await WebhookEndpoint.find_raw_across_orgs_each("_id", [endpoint_id])
        if not rows:
            known = self.endpoints.get(endpoint_id)
            self.endpoints[endpoint_id] = Endpoint(endpoint_id, known.org_id if known else ObjectId("0" * 24), "",
                                                   False, [], None, time.monotonic(), deleted=True)
            return
        await self._cache(rows)

    async def _cache(self, rows: list[dict[str, Any]]) -> None:
        ring = None
        now = utcnow()
        for row in rows:
            keys = []
            sealed = [row.get("secret")]
            until = row.get("previous_secret_until")
            if row.get("previous_secret") and until is not None and _aware(until) > now:
                sealed.append(row["previous_secret"])
            for value in sealed:
                if value not in self.keys:
                    ring = ring or await keyring(self.settings)
                    try:
                        self.keys[value] = signing.key_of(ring.open(value))
                    except SecretUnreadable:
                        log.error("webhook endpoint %s: its secret cannot be decrypted", row["_id"])
                        continue
                keys.append(self.keys[value])
            self.endpoints[row["_id"]] = Endpoint(row["_id"], row["org_id"], row["url"], bool(row.get("is_active", True))
                                                  and bool(keys), keys, row.get("failing_since"), time.monotonic())

    # --- outcomes --------------------------------------------------------------------------------------------
    async def _flusher(self) -> None:
        while True:
            await self.outcome_ready.wait()
            self.outcome_ready.clear()
            if not self.outcomes:
                if self._drained():
                    return
                continue
            if len(self.outcomes) < 200 and not self.stopping.is_set():
                await asyncio.sleep(0.01)  # let a few more finish: one write for all
            batch, self.outcomes = self.outcomes, []
            try:
                await self._write(batch)
            except Exception:
                log.exception("webhook outcomes not written; retrying in 1 s")
                self.outcomes = batch + self.outcomes
                await asyncio.sleep(1.0)
                self.outcome_ready.set()
            if self._drained() and not self.outcomes:
                return

    def _drained(self) -> bool:
        """Stopping, and no attempt is in flight any more."""
        return self.stopping.is_set() and all(task.done() for task in self.workers)

    async def _write(self, batch: list[Outcome]) -> None:
        claimed = [o for o in batch if not o.held.fresh]
        fresh = [o for o in batch if o.held.fresh]
        if claimed:
            await WebhookDelivery.bulk_write_across_orgs([
                UpdateOne({"_id": o.held.id, "claim": self.token}, self._update(o)) for o in claimed])
            for o in claimed:
                self.held.pop(o.held.id, None)
        if fresh:
            await self._write_fresh(fresh)
        # The outcomes are written: what follows is retried on its own, never by writing them again.
        try:
            if self.to_mark:
                marking, self.to_mark = self.to_mark, []
                try:
                    await dispatch.mark_dispatched(marking, utcnow())
                except Exception:
                    self.to_mark = marking + self.to_mark
                    raise
                marked_at = time.monotonic()
                for event_id in marking:  # the dispatcher skips them until a read begun after this
                    self.dispatching.pop(event_id, None)
                    self.marked[event_id] = marked_at
            await self._endpoint_states(batch)
        except Exception:
            log.exception("webhook events not marked dispatched or endpoint states not written; retried later")

    async def _write_fresh(self, fresh: list[Outcome]) -> None:
        """Fresh deliveries are inserted with their first outcome; a record that exists already (its event
        was dispatched twice) gets the attempt added; a deleted endpoint's is not written. Then events whose
        deliveries are all written leave the outbox."""
        kept = [o for o in fresh if o.not_sent != DELETED]
        refused = await dispatch.create_refused([self._document(o) for o in kept])
        if refused:
            await WebhookDelivery.bulk_write_across_orgs([
                UpdateOne({"_id": kept[i].held.id}, self._update(kept[i], again=True)) for i in refused])
        for o in fresh:
            event_id = o.held.event_id
            left = self.dispatching.get(event_id)
            if not left:
                continue
            self.dispatching[event_id] = left - 1
            if left == 1:  # every delivery of the event is written (it stays skipped until marked)
                self.to_mark.append(event_id)

    def _state(self, o: Outcome) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """(the fields an outcome sets, the attempt's log entry or None when nothing was sent)."""
        held = o.held
        done = {"claim": None, "replay": False, "updated_at": o.finished}
        if o.not_sent is not None:
            return {**done, "status": "failed", "due_at": NEVER, "failure": o.not_sent}, None
        entry = {"attempt": held.attempt_count + 1, "at": o.at, "httpStatus": o.http_status,
                 "durationMs": o.duration_ms, "error": o.error, "responseSnippet": o.snippet}
        if o.delivered:
            self.delivered += 1
            return {**done, "status": "delivered", "due_at": NEVER, "delivered_at": o.finished}, entry
        self.failed_attempts += 1
        after = rules.after_failure(held.tries + 1, o.finished, replay=held.replay)
        if o.http_status == 410 or after.due_at is None:
            return {**done, "status": "failed", "due_at": NEVER}, entry
        return {**done, "status": "pending", "due_at": after.due_at}, entry

    def _update(self, o: Outcome, *, again: bool = False) -> dict[str, Any]:
        fields, entry = self._state(o)
        if again:  # the record another dispatch wrote: add the attempt; only a success changes its state
            fields = {"status": "delivered", "due_at": NEVER, "claim": None, "delivered_at": o.finished,
                      "updated_at": o.finished} if o.delivered else {"updated_at": o.finished}
        update: dict[str, Any] = {"$set": fields}
        if entry is not None:
            update["$push"] = {"attempts": {"$each": [entry], "$slice": -rules.MAX_LOG}}
            update["$inc"] = {"attempt_count": 1, "tries": 0 if o.held.replay else 1}
        return update

    def _document(self, o: Outcome) -> WebhookDelivery:
        held = o.held
        fields, entry = self._state(o)
        document = WebhookDelivery(org_id=held.org_id, endpoint_id=held.endpoint_id, event_id=held.event_id,
                                   kind=held.kind, body=held.body, event_at=held.event_at,
                                   created_at=held.created_at or o.at, tries=0 if entry is None else 1,
                                   attempt_count=0 if entry is None else 1, attempts=[] if entry is None else [entry],
                                   **fields)
        document.id = held.id
        return document

    async def _endpoint_states(self, batch: list[Outcome]) -> None:
        """410 disables at once; a success ends a failing run; five days of failures disable."""
        last: dict[ObjectId, Outcome] = {}
        gone: dict[ObjectId, Outcome] = {}
        for o in batch:
            if o.not_sent is not None:
                continue
            if o.http_status == 410:
                gone[o.held.endpoint_id] = o
            last[o.held.endpoint_id] = o
        for endpoint_id, o in last.items():
            endpoint = self.endpoints.get(endpoint_id)
            org = o.held.org_id
            if endpoint_id in gone:
                await self._disable(org, endpoint_id, "gone", o.finished)
            elif o.delivered:
                if endpoint is not None and endpoint.failing_since is not None:
                    await WebhookEndpoint.update_one_in(org, {"_id": endpoint_id}, {"$set": {"failing_since": None}})
                    endpoint.failing_since = None
            elif endpoint is not None and endpoint.failing_since is None:
                # Kept if another worker set it first (the filter stays {org_id, _id}: an indexed shape).
                await WebhookEndpoint.update_one_in(org, {"_id": endpoint_id}, [
                    {"$set": {"failing_since": {"$ifNull": ["$failing_since", o.finished]}}}])
                endpoint.failing_since = o.finished
            elif endpoint is not None and o.finished - _aware(endpoint.failing_since) >= FAILING_LIMIT:
                await self._disable(org, endpoint_id, "failing", o.finished)

    async def _disable(self, org: ObjectId, endpoint_id: ObjectId, reason: str, at: datetime) -> None:
        before = await WebhookEndpoint.find_one_and_update_in(org, {"_id": endpoint_id}, [{"$set": {
            "is_active": False, "disabled_at": {"$cond": ["$is_active", at, "$disabled_at"]},
            "disabled_reason": {"$cond": ["$is_active", reason, "$disabled_reason"]}, "updated_at": at}}],
            projection={"is_active": 1})
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is not None:
            endpoint.active = False
        if before is not None and before.get("is_active", True):
            log.warning("webhook endpoint %s disabled (%s)", endpoint_id,
                        "410 Gone" if reason == "gone" else "failing for five days")


async def serve(services: Services, stop: asyncio.Event) -> None:
    """Run the engine until `stop` is set."""
    await Engine(services, stop).run()
