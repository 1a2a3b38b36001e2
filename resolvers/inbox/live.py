"""Live inbox updates: published through Redis pub/sub, delivered to the subscribers of every API process.

Publishing is one PUBLISH on the organisation's channel (`{prefix}:inbox:live:{org_id}`), inside a script
that prefixes the organisation's authentication token (below); a batch of the message pipeline publishes
all its updates in one pipelined round trip. Nothing is held in one process's memory, so an update reaches subscribers on every API process, and an organisation's
subscribers only ever hear its own channel. Live updates are best effort: a Redis failure while
publishing is logged and never undoes or fails the write that caused it.

Each process holds one `Hub` per Redis client: one pub/sub connection, subscribed to the channels of
the organisations that have subscribers in this process, and one reader task that hands each update
to the matching subscribers' bounded queues without waiting on any of them. A subscriber that does not
keep up loses its oldest updates and receives a `lagged` update (`{dropped}`) before the next one, so a
slow connection never stalls the others.

Authorisation per update: a subscription outlives the request that opened it, so each update carries the
organisation's authentication token as it stood when it was published (read and published in one Redis
script, so no revocation can fall between them). A subscriber whose snapshot is of another token reads
its key and organisation again before the update is sent (one read per token and process, shared by its
subscribers): a revoked key ends the subscription with INVALID_API_KEY, and the operation's checks run
again (FEATURE_NOT_ENABLED after a downgrade, ORG_INACTIVE). A quiet subscription checks every
RECHECK_SECONDS.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import uuid
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, AsyncIterator, Awaitable, Callable, Iterable

from bson import ObjectId
from redis.exceptions import NoScriptError, RedisError

from leadline.models.auth import ApiKey, Organisation
from leadline.models.chats import ChatMessage, Conversation
from leadline.resolvers.auth.authenticate import origin_allowed
from leadline.resolvers.auth.cache import current_org_token, org_token_key
from leadline.resolvers.auth.snapshots import KeySnapshot, OrgSnapshot
from leadline.resolvers.context import RequestContext, Services
from leadline.resolvers.errors import ApiError
from leadline.resolvers.runner import authorize, current_operation

log = logging.getLogger("leadline.inbox.live")

ASSIGNED = "conversation:assigned"
UNASSIGNED = "conversation:unassigned"
STATUS_CHANGED = "conversation:status_changed"
MESSAGE_NEW = "message:new"
MESSAGE_STATUS = "message:status"
LAGGED = "lagged"
UPDATE_TYPES = (ASSIGNED, UNASSIGNED, STATUS_CHANGED, MESSAGE_NEW, MESSAGE_STATUS)
# Updates a subscriber may have waiting before its oldest are dropped.
QUEUE_SIZE = 256
# How often a quiet subscription checks that its key and organisation still allow it (`_recheck`).
RECHECK_SECONDS = 30.0
# Subscriptions one websocket connection may hold at once.
MAX_SUBSCRIPTIONS = 50
# Keys and organisations read again by rechecks, kept per (kind, id, token) for the process's subscribers.
MAX_REMEMBERED = 4096


@dataclass(frozen=True)
class Update:
    type: str
    conversation_id: str | None
    payload: dict[str, Any]


def iso(value: datetime | None) -> str | None:
    """Timestamps as the API writes them: UTC, milliseconds, `Z`."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, ObjectId):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def channel_name(prefix: str, org_id: ObjectId | str) -> str:
    return f"{prefix}:inbox:live:{org_id}"


def channel(services: Services, org_id: ObjectId | str) -> str:
    return channel_name(services.settings.redis_prefix, org_id)


def _encode(update: Update) -> str:
    return json.dumps({"type": update.type, "conversationId": update.conversation_id,
                       "payload": _plain(update.payload)}, separators=(",", ":"), default=str)


def _decode(raw: bytes | str) -> tuple[Update, str] | None:
    """A published message: `<token> <update as JSON>`."""
    try:
        text = raw.decode() if isinstance(raw, bytes) else raw
        token, _, body = text.partition(" ")
        data = json.loads(body)
        return Update(str(data["type"]), data.get("conversationId"), data.get("payload") or {}), token
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        log.warning("malformed live update ignored")
        return None


# The organisation's authentication token (created as `current_org_token` does when Redis has none) and the
# update, published together: an update published after a revocation carries the new token.
_PUBLISH = """
redis.call('SET', KEYS[1], ARGV[3], 'NX')
local token = redis.call('GET', KEYS[1])
return redis.call('PUBLISH', ARGV[1], token .. ' ' .. ARGV[2])
"""
_PUBLISH_SHA = hashlib.sha1(_PUBLISH.encode()).hexdigest()


async def publish_to(redis: Any, prefix: str, items: Iterable[tuple[ObjectId, Update]]) -> None:
    """Publish (organisation, update) pairs in one round trip (the script is loaded once per Redis server).
    Raises Redis's errors; `publish` is the best-effort form."""
    calls = [(org_token_key(prefix, org_id), channel_name(prefix, org_id), _encode(update))
             for org_id, update in items]
    if not calls:
        return
    for attempt in range(2):
        pipe = redis.pipeline(transaction=False)
        for token_key, name, body in calls:
            pipe.evalsha(_PUBLISH_SHA, 1, token_key, name, body, uuid.uuid4().hex)
        try:
            await pipe.execute()
            return
        except NoScriptError:
            if attempt:
                raise
            await redis.script_load(_PUBLISH)


async def publish(services: Services, items: Iterable[tuple[ObjectId, Update]]) -> None:
    """Publish (organisation, update) pairs in one round trip; failures are logged, never raised."""
    try:
        await publish_to(services.redis, services.settings.redis_prefix, items)
    except (RedisError, OSError) as exc:
        log.warning("live inbox updates not published: %s", exc)


async def publish_one(ctx: RequestContext, update: Update) -> None:
    await publish(ctx.services, [(ctx.org_id, update)])


# --- the message pipeline's updates (resolvers/chats/inbound.py, statuses.py) ----------------------
def message_row(message: ChatMessage) -> dict[str, Any]:
    """A stored message as the history returns it (GET /v2.0/chats/history `messages[]`)."""
    media, cost, error = message.media, message.cost, message.error
    return {
        "messageId": str(message.id), "cmid": message.cmid, "direction": message.direction,
        "status": message.status, "type": message.type, "text": message.text,
        "media": {"url": media.get("url"), "type": media.get("type")} if media else None,
        "components": message.components,
        "reactions": [{"emoji": r.get("emoji", ""), "from": r.get("from"), "direction": r.get("direction", "inbound"),
                       "createdAt": iso(r.get("at"))} for r in message.reactions],
        "campaignId": str(message.campaign_id) if message.campaign_id else None,
        "cost": {"amount": cost.get("amount"), "currency": cost.get("currency"),
                 "category": cost.get("category")} if cost else None,
        "error": {"code": error.get("code"), "title": error.get("title"),
                  "message": error.get("message")} if error else None,
        "brandNumber": message.brand_number, "internal": message.internal, "edited": message.edited,
        "deleted": message.deleted, "createdAt": iso(message.created_at),
        "contactId": str(message.contact_id) if message.contact_id else None,
    }


async def publish_new_messages(ctx: RequestContext, stored: list[tuple[ChatMessage, Conversation | None]]) -> None:
    """`message:new` for each message a batch stored, with its conversation row's id."""
    await publish(ctx.services, [(ctx.org_id, Update(MESSAGE_NEW, str(row.id) if row else None, message_row(message)))
                                 for message, row in stored])


async def publish_statuses(moved: list[tuple[RequestContext, dict[str, Any]]]) -> None:
    """`message:status` for each message a batch moved (raw documents after the update). Only organisations
    with a subscriber somewhere (PUBSUB NUMSUB, one round trip) are published to, and only for them are
    the conversation ids read (indexed, IN_BATCH contacts per read: models/base.py `in_batches`)."""
    if not moved:
        return
    services = moved[0][0].services
    by_org: dict[ObjectId, tuple[RequestContext, list[dict[str, Any]]]] = {}
    for ctx, doc in moved:
        by_org.setdefault(ctx.org_id, (ctx, []))[1].append(doc)
    names = [channel(services, org_id) for org_id in by_org]
    try:
        counts = dict(await services.redis.pubsub_numsub(*names))
    except (RedisError, OSError) as exc:
        log.warning("live inbox updates not published: %s", exc)
        return
    items: list[tuple[ObjectId, Update]] = []
    for (org_id, (ctx, docs)), name in zip(by_org.items(), names):
        if not counts.get(name.encode(), counts.get(name, 0)):
            continue
        contacts = list({d["contact_id"] for d in docs if d.get("contact_id")})
        rows = await Conversation.find_raw_in_each(ctx, "contact_id", contacts,
                                                   projection={"_id": 1, "contact_id": 1, "brand_number": 1})
        row_of = {(r["contact_id"], r["brand_number"]): str(r["_id"]) for r in rows}
        for doc in docs:
            conversation = row_of.get((doc.get("contact_id"), doc.get("brand_number")))
            items.append((org_id, Update(MESSAGE_STATUS, conversation,
                                         {"messageId": str(doc["_id"]), "status": doc["status"]})))
    await publish(services, items)


# --- subscribers ------------------------------------------------------------------------------
class Subscriber:
    """One subscription's bounded queue of updates (each with the token it was published under), fed by
    the hub's reader without ever waiting."""

    def __init__(self, conversation_id: str | None = None, size: int = QUEUE_SIZE) -> None:
        self.conversation_id = conversation_id
        self.size = size
        self.queue: deque[tuple[Update, str | None]] = deque()
        self.dropped = 0
        # The token of the newest update offered (a `lagged` update is checked against it).
        self.token: str | None = None
        self._ready = asyncio.Event()

    def wants(self, update: Update) -> bool:
        return self.conversation_id is None or update.conversation_id == self.conversation_id

    def offer(self, update: Update, token: str | None = None) -> None:
        if len(self.queue) >= self.size:
            self.queue.popleft()
            self.dropped += 1
        self.queue.append((update, token))
        self.token = token
        self._ready.set()

    async def next(self, timeout: float | None = None) -> tuple[Update, str | None] | None:
        """The next update and its token (a `lagged` one first after drops); None when `timeout` passes
        without one."""
        while not self.queue and not self.dropped:
            self._ready.clear()
            if timeout is None:
                await self._ready.wait()
            else:
                try:
                    await asyncio.wait_for(self._ready.wait(), timeout)
                except asyncio.TimeoutError:
                    return None
        if self.dropped:
            dropped, self.dropped = self.dropped, 0
            return Update(LAGGED, self.conversation_id, {"dropped": dropped}), self.token
        return self.queue.popleft()


class Hub:
    """This process's subscribers, by organisation channel, on one Redis pub/sub connection; and the keys
    and organisations its subscribers' rechecks read, once per token."""

    def __init__(self, redis: Any) -> None:
        self.pubsub = redis.pubsub(ignore_subscribe_messages=True)
        self.local: dict[str, set[Subscriber]] = {}
        self.subscribed: set[str] = set()
        self._lock = asyncio.Lock()
        self._reader: asyncio.Task | None = None
        self._closed = False
        self._remembered: dict[tuple, asyncio.Future] = {}

    async def join(self, name: str, subscriber: Subscriber) -> None:
        self.local.setdefault(name, set()).add(subscriber)
        await self._sync(name)

    async def leave(self, name: str, subscriber: Subscriber) -> None:
        subscribers = self.local.get(name)
        if subscribers is not None:
            subscribers.discard(subscriber)
            if not subscribers:
                del self.local[name]
        await self._sync(name)

    async def _sync(self, name: str) -> None:
        """Subscribe to a channel while it has local subscribers, unsubscribe when it has none."""
        async with self._lock:
            if self._closed:
                return
            wanted = name in self.local
            if wanted and name not in self.subscribed:
                await self.pubsub.subscribe(name)
                self.subscribed.add(name)
                if self._reader is None or self._reader.done():
                    self._reader = asyncio.create_task(self._read())
            elif not wanted and name in self.subscribed:
                self.subscribed.discard(name)
                try:
                    await self.pubsub.unsubscribe(name)
                except (RedisError, OSError) as exc:
                    log.warning("live inbox channel not unsubscribed: %s", exc)

    async def _read(self) -> None:
        while not self._closed:
            try:
                message = await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - Redis away: the connection reconnects and resubscribes
                log.warning("live inbox reader: %s", exc)
                await asyncio.sleep(0.5)
                continue
            if not message or message.get("type") != "message":
                continue
            self._dispatch(message)
            # A burst already buffered is read without blocking: let the subscribers run between updates.
            await asyncio.sleep(0)

    def _dispatch(self, message: dict[str, Any]) -> None:
        """Hand one update to the channel's matching subscribers (never waits on them)."""
        name = message["channel"].decode() if isinstance(message["channel"], bytes) else message["channel"]
        subscribers = self.local.get(name)
        if not subscribers:
            return
        decoded = _decode(message["data"])
        if decoded is None:
            return
        update, token = decoded
        for subscriber in list(subscribers):
            if subscriber.wants(update):
                subscriber.offer(update, token)

    async def remembered(self, key: tuple, load: Callable[[], Awaitable[Any]]) -> Any:
        """`load()`'s result, shared by every caller with the same key (one read for all the subscribers
        a token change sends to recheck). A failed load is forgotten, so the next caller tries again."""
        future = self._remembered.get(key)
        if future is None:
            if len(self._remembered) >= MAX_REMEMBERED:
                self._remembered.clear()
            future = self._remembered[key] = asyncio.ensure_future(load())
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            raise
        except Exception:
            if self._remembered.get(key) is future:
                del self._remembered[key]
            raise

    async def close(self) -> None:
        async with self._lock:
            self._closed = True
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
        for future in self._remembered.values():
            future.cancel()
        self._remembered.clear()
        try:
            await self.pubsub.aclose()
        except (RedisError, OSError):
            pass


# One hub per Redis client (a process's API services), created on the first subscription.
_HUBS: dict[int, Hub] = {}


def hub_for(services: Services) -> Hub:
    key = id(services.redis)
    hub = _HUBS.get(key)
    if hub is None:
        hub = _HUBS[key] = Hub(services.redis)
    return hub


async def close_hub(services: Services) -> None:
    """At shutdown, before the Redis client closes (leadline/app.py)."""
    hub = _HUBS.pop(id(services.redis), None)
    if hub is not None:
        await hub.close()


async def _recheck(ctx: RequestContext, token: str | None = None) -> None:
    """Nothing to do while `token` (an update's, or else the organisation's current one) is the one the
    subscription's snapshot was taken under. Otherwise something about the organisation changed (a key
    revoked, the plan, the active flag, the allowed origins): the key and organisation are read again
    (once per token in this process). A revoked key ends the subscription (INVALID_API_KEY), an origin no
    longer allowed too (DOMAIN_NOT_WHITELISTED); the operation's checks run again on the fresh snapshot
    (FEATURE_NOT_ENABLED after a downgrade, ORG_INACTIVE)."""
    services = ctx.services
    if token is None:
        token = await current_org_token(services.redis, services.settings.redis_prefix, ctx.org_id)
    if token == ctx.org_token:
        return
    hub = hub_for(services)
    key_id, org_id = ctx.key.id if ctx.key is not None else None, ctx.org_id
    key = await hub.remembered(("key", key_id, token), lambda: ApiKey.find_one_across_orgs({"_id": key_id})) \
        if key_id is not None else None
    org = await hub.remembered(("org", org_id, token), lambda: Organisation.get(org_id))
    if key is None or key.revoked_at is not None or org is None or key.org_id != org.id:
        raise ApiError("INVALID_API_KEY", "The API key was revoked: this subscription has ended.")
    origin = getattr(ctx, "origin", None)  # a websocket's handshake Origin (leadline/http.py: SocketContext)
    if not origin_allowed(origin, tuple(org.allowed_origins)):
        raise ApiError("DOMAIN_NOT_WHITELISTED", f"Requests from origin '{origin}' are no longer allowed for this "
                                                 "organisation: this subscription has ended.")
    ctx.org = OrgSnapshot(id=org.id, name=org.name, plan=org.plan, timezone=org.timezone, is_active=org.is_active,
                          allowed_origins=tuple(org.allowed_origins))
    ctx.key = KeySnapshot(id=key.id, kind=key.kind, scopes=frozenset(key.scopes), label=key.label)
    ctx.org_token = token
    if (spec := current_operation()) is not None:
        authorize(ctx, spec)


async def updates(ctx: RequestContext, conversation_id: str | None = None) -> AsyncIterator[Update]:
    """The organisation's live updates (one conversation's with `conversation_id`), as they happen. The key
    and organisation are checked when it starts, for every update against the token it was published under,
    and after RECHECK_SECONDS without one (`_recheck`). At most MAX_SUBSCRIPTIONS per connection."""
    active: set = ctx.loader("inbox_live_subscriptions", set)
    if len(active) >= MAX_SUBSCRIPTIONS:
        raise ApiError("VALIDATION_ERROR", f"A connection holds at most {MAX_SUBSCRIPTIONS} subscriptions; end one "
                                           "(complete) or open another connection.")
    subscriber = Subscriber(conversation_id)
    active.add(subscriber)  # before any wait, so concurrent starts count each other
    hub = hub_for(ctx.services)
    name = channel(ctx.services, ctx.org_id)
    try:
        await _recheck(ctx)  # the key may have been revoked since the connection was opened
        if conversation_id is not None:
            row = await Conversation.get_in(ctx, conversation_id)
            if row is None:
                raise ApiError("CONVERSATION_NOT_FOUND", f"No conversation with id {str(conversation_id)[:100]}.")
        await hub.join(name, subscriber)
        while True:
            item = await subscriber.next(timeout=RECHECK_SECONDS)
            if item is None:
                await _recheck(ctx)
                continue
            update, token = item
            await _recheck(ctx, token)
            yield update
    finally:
        active.discard(subscriber)
        await hub.leave(name, subscriber)
