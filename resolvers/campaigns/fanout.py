"""The campaign fan-out: chunks of recipients sent in batches, each recipient at most once, none lost.

A started campaign puts one entry per chunk on the `campaigns` work stream (resolvers/streams.py).
Workers claim entries (a dead worker's are taken over after the stream's lease), and per chunk:
1. claim the chunk in the database with a fresh token (a slower earlier claimer can no longer finish it);
2. take the 24-hour tier for the batch in one Lua call (used up: the campaign pauses, the chunk comes
   back when the tier admits new recipients again);
3. mark each recipient "attempted" (with the time) in Redis with SET NX just before sending it: a recipient
   already marked by an earlier claimer is not sent again. Its provider id, once recorded, is used; an
   attempt younger than the attempt deadline may still be under way (a slow claimer whose lease ran out),
   so the chunk is offered again after the lease; an older one with no outcome ends `failed:INTERRUPTED`
   (its claimer died between the mark and the provider's answer: the provider may or may not have it);
4. a group of 64 at a time (paced to the number's throughput, then marked in one pipeline): send through the
   channel's adapter with bounded concurrency, record the group's provider ids (one pipeline);
5. insert the messages (one
   command, deterministic ids), write the chunk's outcomes (one conditional update) and the campaign's
   progress (one update), and queue the rows and events of the messages for the ingestion worker
   (conversation rows and `chatapp.message_sent` in bulk, behind the dispatch).
"""
from __future__ import annotations

import asyncio
import hashlib
import logging
import time
import uuid
from datetime import timedelta
from typing import Any

from bson import ObjectId
from pymongo import ReturnDocument

from leadline.models.base import utcnow
from leadline.models.campaigns import TERMINAL, Campaign, CampaignChunk
from leadline.models.channels import ChannelAccount
from leadline.models.chats import ChatMessage
from leadline.models.templates import MessageTemplate
from leadline.resolvers.campaigns import feedback, variables
from leadline.resolvers.context import RequestContext, Services
from leadline.resolvers.events import Event, emit_many
from leadline.resolvers.messaging import pacing, sandbox, tier
from leadline.resolvers.messaging.templates import rendered_text
from leadline.resolvers.providers.base import ProviderRejected, SentMessage
from leadline.resolvers.streams import WorkStream
from leadline.resolvers.webhooks.change import WebhookChange
from leadline.resolvers.webhooks.dispatch import bulk_sending_key, queue_changes

log = logging.getLogger("leadline.campaigns")
STREAM = "campaigns"
OUTBOUND_FIELD = "leadline.outbound"  # internal changes for the ingestion worker (rows and events)
SEND_CONCURRENCY = 32
SEND_GROUP = 2 * SEND_CONCURRENCY
IN_FLIGHT = 4  # chunks a worker sends at once
ATTEMPT_TTL = 7 * 24 * 3600
ATTEMPTED = "attempted:"  # + the time of the mark
LEASE = timedelta(minutes=5)
SENDING_MARK_MS = 2000  # the bulk-sending mark outlives a paced group by this much


def campaign_stream(services: Services) -> WorkStream:
    return services.stream(STREAM, stale_ms=int(services.settings.campaign_lease_seconds * 1000))


def message_id(campaign_id: ObjectId, chunk: int, slot: int) -> ObjectId:
    """The recipient's message id, the same for every attempt: a second insert is refused."""
    return ObjectId(hashlib.sha256(f"{campaign_id}|{chunk}|{slot}".encode()).digest()[:12])


async def start(services: Services, campaign: Campaign) -> None:
    """Offer every chunk to the workers (the campaign is `processing` by now)."""
    await offer(services, campaign, range(campaign.chunks_total))


async def offer(services: Services, campaign: Campaign, indexes) -> None:
    """Offer these chunks to the workers (an immediate campaign's, as its create freezes them)."""
    await campaign_stream(services).add({"org": str(campaign.org_id), "campaign": str(campaign.id), "chunk": i}
                                        for i in indexes)


async def drain(services: Services, consumer: str, *, count: int = IN_FLIGHT, block_ms: int | None = None) -> int:
    """Claim up to `count` chunks and send them concurrently. Returns how many were handled."""
    stream = campaign_stream(services)
    entries = await stream.claim(consumer, count, block_ms)
    results = await asyncio.gather(*(handle(services, stream, entry) for entry in entries))
    return sum(results)


async def serve(services: Services, consumer: str, stop: asyncio.Event, *, in_flight: int = IN_FLIGHT) -> None:
    """Keep `in_flight` chunks going: a finished chunk's place is taken by the next one at once (while
    some chunks wait for the number's pace, others are written)."""
    stream = campaign_stream(services)
    places = asyncio.Semaphore(in_flight)
    running: set[asyncio.Task] = set()

    def done(task: asyncio.Task) -> None:
        running.discard(task)
        places.release()

    try:
        while not stop.is_set():
            await places.acquire()
            try:
                entries = await stream.claim(consumer, 1, 500)
            except BaseException:
                places.release()
                raise
            if not entries:
                places.release()
                continue
            task = asyncio.create_task(handle(services, stream, entries[0]))
            running.add(task)
            task.add_done_callback(done)
    finally:
        if running:  # chunks in hand are finished (an unfinished one is taken over after its lease)
            await asyncio.gather(*running, return_exceptions=True)


async def handle(services: Services, stream: WorkStream, entry) -> int:
    """Run one chunk entry and acknowledge it (offering it again later when the tier paused it).
    Returns 1 when handled, 0 when it failed (it is offered again after the lease)."""
    try:
        again = await run_chunk(services, entry.payload)
    except Exception:
        log.exception("campaign chunk failed; it will be offered again", extra={"entry": entry.payload})
        return 0
    if again is not None:  # paused: offered again when the tier admits new recipients
        await stream.add_later([(entry.payload, time.time() + again)])
    await stream.ack([entry.id])
    return 1


async def run_chunk(services: Services, entry: dict[str, Any]) -> float | None:
    """Send one chunk. Returns None when the chunk is finished, or the seconds after which to offer it
    again (the tier was used up)."""
    org_id, campaign_id = ObjectId(entry["org"]), ObjectId(entry["campaign"])
    campaign = await Campaign.get_in(org_id, campaign_id)
    if campaign is None:
        return None
    if campaign.status == "cancelled":
        await _skip_chunk(campaign, entry["chunk"])
        return None
    if campaign.status in TERMINAL:
        return None
    token = uuid.uuid4().hex
    raw = await CampaignChunk.find_one_and_update_in(
        org_id, {"campaign_id": campaign_id, "index": entry["chunk"], "state": {"$in": ["pending", "claimed"]}},
        {"$set": {"state": "claimed", "claimed_by": token, "claimed_until": utcnow() + LEASE}},
        return_document=ReturnDocument.AFTER)
    if raw is None:
        return None  # done (or skipped) already
    chunk = CampaignChunk.model_validate(raw)
    ctx, account, template = await _context(services, campaign)
    if account is None or template is None:
        await _finish(services, campaign, chunk, token, {i: "failed:BIZACCT_NOT_FOUND" if account is None else
                                                             "failed:TEMPLATE_NOT_FOUND"
                                                         for i, o in enumerate(chunk.outcomes) if o == "pending"}, [])
        return None
    return await _send(services, ctx, campaign, account, template, chunk, token)


async def _context(services: Services, campaign: Campaign):
    from leadline.resolvers.chats.routing import org_contexts

    ctx = (await org_contexts(services, [campaign.org_id])).get(campaign.org_id)
    account = await ChannelAccount.find_one_in(campaign.org_id, {"platform": "chatapp", "number": campaign.brand_number})
    template = await MessageTemplate.get_in(campaign.org_id, campaign.template["dbId"])
    return ctx, account if account is not None and account.is_active else None, template


async def _send(services: Services, ctx: RequestContext, campaign: Campaign, account: ChannelAccount,
                template: MessageTemplate, chunk: CampaignChunk, token: str) -> float | None:
    outcomes: dict[int, str] = {}
    todo = []
    for slot, outcome in enumerate(chunk.outcomes):
        if outcome != "pending":
            continue
        params = chunk.params[slot]
        if "missing" in params:
            outcomes[slot] = "failed:VARIABLE_MISSING"
        else:
            todo.append(slot)
    admitted, retry_in = await tier.admit_many(services, account, [chunk.phones[s] for s in todo])
    refused = [s for s, ok in zip(todo, admitted) if not ok]
    todo = [s for s, ok in zip(todo, admitted) if ok]
    lease = services.settings.campaign_lease_seconds
    # A live claimer may be slow (paced, a slow provider, a starved CPU): only a mark older than the
    # time one group's sends can take means its claimer is gone.
    deadline = max(lease, services.settings.campaign_attempt_deadline_seconds)
    adapter = services.providers.for_account(account)
    recorded: dict[int, str] = {}  # slots an earlier claimer sent: their provider ids
    in_flight: list[int] = []
    messages: list[ChatMessage] = []
    statuses: list[tuple[WebhookChange, float]] = []
    # A group at a time, marked just before it is sent and its results recorded before the next: a
    # worker killed mid-chunk leaves at most one group of attempts without an outcome.
    for start in range(0, len(todo), SEND_GROUP):
        group = todo[start:start + SEND_GROUP]
        # Paced before the marks, so a mark's age is the provider's time, not the queue's.
        await pacing.take(services, account, adapter.name, len(group))
        fresh, earlier = await _mark_attempts(services, campaign, chunk, group)
        for slot, value in earlier.items():
            if not value.startswith(ATTEMPTED):
                outcomes[slot] = value if value.startswith("failed:") else "sent"  # else the provider's id
                if outcomes[slot] == "sent":
                    recorded[slot] = value
            elif time.time() - float(value[len(ATTEMPTED):] or 0) < deadline:
                in_flight.append(slot)  # its claimer may still be sending: look again later
            else:  # its claimer died between the mark and the answer: the provider may or may not have it
                outcomes[slot] = "failed:INTERRUPTED"
        if not fresh:
            continue
        sent = await _provider_sends(adapter, account, template, chunk, fresh)
        pipe = services.redis.pipeline(transaction=False)
        for slot in fresh:
            result = sent[slot]
            key = _attempt_key(services, campaign, chunk, slot)
            if isinstance(result, SentMessage):
                outcomes[slot] = "sent"
                pipe.set(key, result.provider_message_id, ex=ATTEMPT_TTL)
                messages.append(_message(ctx, campaign, account, template, chunk, slot, result.provider_message_id))
                statuses += sandbox.feedback_changes(services, account, result, chunk.phones[slot])
            else:
                outcomes[slot] = f"failed:{result}"
                pipe.set(key, f"failed:{result}", ex=ATTEMPT_TTL)
        await pipe.execute()
    for slot, value in recorded.items():  # an earlier attempt's message, if it was not stored
        messages.append(_message(ctx, campaign, account, template, chunk, slot, value))
    if messages:
        await ChatMessage.insert_many_in(ctx, messages)
    # The sandbox's statuses are queued below, after the outcomes; a real provider's may overtake them.
    paused = await _finish(services, campaign, chunk, token, outcomes, messages,
                           pending=bool(refused or in_flight), overtaken=adapter.name != "sandbox")
    if statuses:  # the sandbox's statuses, after the outcomes they move on
        await queue_changes(services, statuses)
    if in_flight and not refused:
        return lease
    if refused:
        again = min(retry_in, services.settings.campaign_pause_recheck_seconds)
        await _pause(campaign, retry_in)
        return again
    if paused:
        await Campaign.update_one_in(campaign, {"_id": campaign.id, "status": "paused"},
                                     {"$set": {"status": "processing", "paused_until": None}})
    return None


def _attempt_key(services: Services, campaign: Campaign, chunk: CampaignChunk, slot: int) -> str:
    return services.rkey("camp", campaign.id, chunk.index, slot)


async def _mark_attempts(services: Services, campaign: Campaign, chunk: CampaignChunk,
                         slots: list[int]) -> tuple[list[int], dict[int, str]]:
    """(slots never attempted: now marked; slots an earlier claimer attempted: what it recorded)."""
    if not slots:
        return [], {}
    pipe, now = services.redis.pipeline(transaction=False), time.time()
    for slot in slots:
        pipe.set(_attempt_key(services, campaign, chunk, slot), f"{ATTEMPTED}{now:.3f}", nx=True, ex=ATTEMPT_TTL)
    pipe.set(bulk_sending_key(services), 1, px=SENDING_MARK_MS)  # statuses wait while we send
    taken = (await pipe.execute())[:-1]
    earlier = [s for s, ok in zip(slots, taken) if not ok]
    recorded = {}
    if earlier:
        values = await services.redis.mget([_attempt_key(services, campaign, chunk, s) for s in earlier])
        recorded = {s: (v.decode() if isinstance(v, bytes) else v) or ATTEMPTED for s, v in zip(earlier, values)}
    return [s for s, ok in zip(slots, taken) if ok], recorded


async def _provider_sends(adapter, account: ChannelAccount, template: MessageTemplate, chunk: CampaignChunk,
                          slots: list[int]) -> dict[int, SentMessage | str]:
    """Each slot's SentMessage, or the refusal's code (the provider's, as a string)."""
    gate = asyncio.Semaphore(SEND_CONCURRENCY)

    async def one(slot: int) -> SentMessage | str:
        async with gate:
            try:
                return await adapter.send_template(account, chunk.phones[slot],
                                                   variables.outbound(template, chunk.params[slot]))
            except ProviderRejected as exc:
                return str(exc.code or "PROVIDER_API_ERROR")
            except Exception:  # a transport failure: the provider may or may not have it
                log.exception("campaign send failed")
                return "PROVIDER_API_ERROR"

    results = await asyncio.gather(*(one(slot) for slot in slots))
    return dict(zip(slots, results))


def _message(ctx: RequestContext, campaign: Campaign, account: ChannelAccount, template: MessageTemplate,
             chunk: CampaignChunk, slot: int, cmid: str) -> ChatMessage:
    now = utcnow()
    outbound = variables.outbound(template, chunk.params[slot])
    message = ChatMessage.new(
        ctx, brand_number=account.number, contact_id=chunk.contact_ids[slot], phone=chunk.phones[slot],
        direction="outbound", status="accepted", type="template", text=rendered_text(template, outbound),
        template={k: campaign.template[k] for k in ("name", "id", "language")}, components=outbound.components,
        cmid=cmid, campaign_id=campaign.id, status_times={"accepted": now}, created_at=now, updated_at=now,
        campaign_slot=[chunk.index, slot],
        campaign_payloads={str(b["index"]): b["payload"] for b in chunk.params[slot].get("buttons", [])
                           if b.get("payload")} or None)
    message.id = message_id(campaign.id, chunk.index, slot)
    return message


async def _finish(services: Services, campaign: Campaign, chunk: CampaignChunk, token: str,
                  outcomes: dict[int, str], messages: list[ChatMessage], *, pending: bool = False,
                  overtaken: bool = False) -> bool:
    """Write the chunk's outcomes (if this claim still holds), then the campaign's progress. Returns
    whether the campaign was paused (so the caller resumes it)."""
    state = "pending" if pending else "done"
    release = {"state": state, "claimed_by": None, "claimed_until": None}
    # The whole list as one field when nobody changed it since the claim (the embedded database applies
    # 500 `outcomes.<i>` paths ~15x slower than one); else only this claim's slots, path by path (a
    # status of an earlier claim's send, or a cancel's skips, came in meanwhile and must stay).
    merged = list(chunk.outcomes)
    for slot, outcome in outcomes.items():
        merged[slot] = outcome
    result = await CampaignChunk.update_one_in(
        chunk, {"_id": chunk.id, "claimed_by": token, "outcomes": chunk.outcomes},
        {"$set": {"outcomes": merged, **release}})
    if not result.matched_count:
        result = await CampaignChunk.update_one_in(
            chunk, {"_id": chunk.id, "claimed_by": token},
            {"$set": {**{f"outcomes.{slot}": outcome for slot, outcome in outcomes.items()}, **release}})
    if not result.matched_count:
        log.warning("campaign %s chunk %d was taken over; its outcomes are the new claimer's", campaign.id,
                    chunk.index)
        return False
    if messages and overtaken:  # a status that came before the outcomes above must not be undone
        moved = [m for m in await ChatMessage.find_raw_by_ids_in(campaign, [m.id for m in messages],
                                                                 {"status": 1, "campaign_slot": 1, "error": 1})
                 if m["status"] in ("delivered", "read", "failed")]
        if moved:
            await CampaignChunk.update_one_in(chunk, {"_id": chunk.id}, {"$set": {
                f"outcomes.{m['campaign_slot'][1]}": feedback.slot_state(m["status"], m.get("error")) for m in moved}})
    update: dict[str, Any] = {"$set": {"updated_at": utcnow()}}
    if not pending:
        update["$inc"] = {"chunks_done": 1}
    after = await Campaign.find_one_and_update_in(campaign, {"_id": campaign.id}, update,
                                                  return_document=ReturnDocument.AFTER)
    if messages:
        await queue_changes(services, [(WebhookChange(OUTBOUND_FIELD, {
            "org": str(campaign.org_id), "messages": [str(m.id) for m in messages]}, None, int(time.time())), 0)],
            weight=len(messages))
    if finished(after):
        await complete(campaign)
    return bool(after and after.get("status") == "paused")


def finished(after: dict[str, Any] | None) -> bool:
    """Whether a campaign document (as written just now) has every chunk done: the write that makes it
    so, a chunk's or the end of the freeze, completes the campaign."""
    return (after is not None and not after.get("freezing") and after.get("status") in ("processing", "paused")
            and after["chunks_done"] >= after["chunks_total"])


async def complete(campaign: Campaign) -> None:
    """Every chunk is done: `completed`, or `failed` when no recipient could be sent."""
    from leadline.resolvers.campaigns.report import outcome_counts

    counts = await outcome_counts(campaign)
    status = "completed" if counts["sent"] + counts["delivered"] + counts["read"] > 0 else "failed"
    now = utcnow()
    # The event first (its id is the campaign's, so a second finisher records nothing): a process dying
    # between the two writes leaves the campaign unfinished, and the stalled sweep completes it again.
    await emit_many(None, [Event(campaign.org_id, "campaign.completed", {
        "campaignId": str(campaign.id), "name": campaign.name, "status": status,
        "counters": {k: counts[k] for k in ("total", "sent", "delivered", "read", "failed", "skipped", "pending")},
        "completedAt": now.isoformat().replace("+00:00", "Z")}, once_for=(campaign.id,))])
    await Campaign.update_one_in(campaign, {"_id": campaign.id, "status": {"$in": ["processing", "paused"]}},
                                 {"$set": {"status": status, "completed_at": now, "updated_at": now}})


async def _pause(campaign: Campaign, seconds: float) -> None:
    until = utcnow() + timedelta(seconds=seconds)
    await Campaign.update_one_in(campaign, {"_id": campaign.id, "status": "processing"},
                                 {"$set": {"status": "paused", "paused_until": until, "updated_at": utcnow()}})


async def _skip_chunk(campaign: Campaign, index: int) -> None:
    """A cancelled campaign's chunk nobody sends any more: its pending recipients are skipped."""
    raw = await CampaignChunk.find_one_raw_in(campaign, {"campaign_id": campaign.id, "index": index},
                                              {"outcomes": 1, "state": 1})
    if raw is None or raw["state"] in ("done", "skipped"):
        return
    changes = {f"outcomes.{i}": "skipped" for i, o in enumerate(raw["outcomes"]) if o == "pending"}
    await CampaignChunk.update_one_in(campaign, {"campaign_id": campaign.id, "index": index,
                                                 "state": {"$in": ["pending", "claimed"]}},
                                      {"$set": {**changes, "state": "skipped"}})


async def end_freeze(campaign: Campaign, total: int, chunks: int) -> None:
    """Every recipient is frozen (and every chunk offered): the campaign's size is known, and it
    completes now if the workers already sent every chunk."""
    after = await Campaign.find_one_and_update_in(campaign, {"_id": campaign.id}, {"$set": {
        "total_contacts": total, "chunks_total": chunks, "freezing": False, "updated_at": utcnow()}},
        return_document=ReturnDocument.AFTER)
    campaign.total_contacts, campaign.chunks_total, campaign.freezing = total, chunks, False
    if finished(after):
        await complete(campaign)


async def skip_pending_chunks(campaign: Campaign) -> int:
    """Skip the pending recipients of the chunks nobody holds (a claimed chunk completes). Returns how many."""
    skipped = 0
    for raw in await CampaignChunk.find_raw_in(campaign, {"campaign_id": campaign.id, "state": "pending"},
                                               {"outcomes": 1, "index": 1}):
        changes = {f"outcomes.{i}": "skipped" for i, o in enumerate(raw["outcomes"]) if o == "pending"}
        done = await CampaignChunk.update_one_in(campaign, {"_id": raw["_id"], "state": "pending"},
                                                 {"$set": {**changes, "state": "skipped"}})
        if done.matched_count:
            skipped += len(changes)
    return skipped


async def abandon_freeze(campaign: Campaign) -> None:
    """A create that stopped freezing its recipients (an error, or its process died) after offering some:
    the campaign is the recipients frozen so far, and it is cancelled (chunks being sent complete, the
    rest are skipped) rather than left unfinished or sent to part of its audience unannounced."""
    chunks = await CampaignChunk.find_raw_in(campaign, {"campaign_id": campaign.id}, {"outcomes": 1})
    now = utcnow()
    result = await Campaign.update_one_in(campaign, {"_id": campaign.id, "freezing": True}, {"$set": {
        "freezing": False, "chunks_total": len(chunks), "total_contacts": sum(len(c["outcomes"]) for c in chunks),
        "status": "cancelled", "cancelled_at": now, "updated_at": now}})
    if result.matched_count:
        log.warning("campaign %s: its create stopped while freezing recipients; cancelled after %d chunks",
                    campaign.id, len(chunks))
        await skip_pending_chunks(campaign)


async def restart_stalled(services: Services, limit: int = 200) -> int:
    """Offer again the unfinished chunks of campaigns nobody advanced for three leases (their stream
    entries were lost with Redis, or acknowledged by a claimer whose lease had run out), and complete
    those whose chunks are all done (a worker died between a chunk's outcomes and the campaign's
    progress). A campaign whose create died while freezing its recipients is cancelled (`abandon_freeze`).
    A chunk offered twice is harmless: its claim is conditional. Returns the campaigns seen."""
    cutoff = utcnow() - timedelta(seconds=3 * services.settings.campaign_lease_seconds)
    stalled = await Campaign.find_across_orgs({"status": "processing", "updated_at": {"$lt": cutoff}}).limit(limit).to_list()
    stalled += await Campaign.find_across_orgs({"status": "paused", "updated_at": {"$lt": cutoff},
                                                "paused_until": {"$lt": cutoff}}).limit(limit).to_list()
    for campaign in stalled:
        if campaign.freezing:  # its create's process died mid-freeze
            await abandon_freeze(campaign)
            continue
        undone = await CampaignChunk.find_raw_in(campaign, {"campaign_id": campaign.id,
                                                            "state": {"$in": ["pending", "claimed"]}}, {"index": 1})
        if not undone:
            await complete(campaign)
            continue
        log.warning("campaign %s stalled; offering its %d unfinished chunks again", campaign.id, len(undone))
        await Campaign.update_one_in(campaign, {"_id": campaign.id}, {"$set": {"updated_at": utcnow()}})
        await campaign_stream(services).add({"org": str(campaign.org_id), "campaign": str(campaign.id),
                                             "chunk": raw["index"]} for raw in undone)
    return len(stalled)
