"""`Idempotency-Key` on the REST routes that create or send (Stripe's semantics; docs/idempotency.md).

A route takes the header when its declaration says so (`Rest(idempotent=...)`; by default every POST
of a mutation). With a key, the first request under it runs and its final response (status, headers
it set, body bytes) is kept in Redis for 24 hours; the same key with the same request (method, path,
query and the parsed JSON body: key order and whitespace do not matter) gets those bytes again with
`Idempotent-Replayed: true`, and nothing runs twice. The same key with another request is 422
IDEMPOTENCY_KEY_REUSED; any request under a key whose first request is still running is 409
IDEMPOTENCY_KEY_IN_USE. 5xx and 429 answers are not kept (the key is released: a retry runs again).
Keys are scoped to the organisation and the API key that sent them.

Redis: one key per (organisation, API key, idempotency key). Arrival is one round trip (a pipeline
of `SET NX EX` for the in-flight claim and `GET` of what is there); completion one `SET` (or a
compare-and-delete of our own claim).
"""
from __future__ import annotations

import hashlib
import json
import logging
import uuid
from typing import Awaitable, Callable

from aiohttp import web

from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.rest_compat.compile import CompiledRoute
from leadline.rest_compat.envelope import error_response

log = logging.getLogger("leadline.idempotency")

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
KEY_MAX = 255
KEEP_SECONDS = 24 * 3600
# How long a claim holds when its process dies mid-request (a finished request replaces it at once).
IN_FLIGHT_SECONDS = 300
# Headers of a kept response that belong to each answer, not to the stored one.
_NOT_KEPT = {"content-length", "date", "server", "x-request-id"}

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def is_idempotent(route: CompiledRoute) -> bool:
    """Whether the route takes an Idempotency-Key: its declaration's flag, else every POST of a mutation."""
    flag = route.binding.idempotent
    if flag is not None:
        return flag
    return route.method == "POST" and route.operation.kind == "mutation"


def _check_key(raw: str) -> str:
    if not 1 <= len(raw) <= KEY_MAX or not all("!" <= ch <= "~" for ch in raw):
        raise validation_error([detail(HEADER, "INVALID_VALUE",
                                       f"{HEADER} must be 1 to {KEY_MAX} visible ASCII characters (no spaces)")])
    return raw


def fingerprint(request: web.Request, raw: bytes) -> str:
    """What "the same request" means: method, path, query (in order of names) and the parsed body."""
    try:
        body = json.loads(raw) if raw.strip() else {}
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8",
                                                                                                     "surrogatepass")
    except (ValueError, RecursionError, UnicodeError):
        canonical = b"raw:" + raw  # not JSON: it gets its error; the same bytes are the same request
    query = sorted(request.rel_url.query.items())
    head = json.dumps([request.method, request.path, query], separators=(",", ":")).encode()
    return hashlib.sha256(head + b"\n" + canonical).hexdigest()


def _redis_key(ctx: RequestContext, key: str) -> str:
    digest = hashlib.sha256(key.encode()).hexdigest()
    return ctx.services.rkey("idem", ctx.org_id, ctx.key.id if ctx.key else "-", digest)


def _in_flight(fp: str, token: str) -> bytes:
    return f"0 {fp} {token}".encode()


def _record(fp: str, response: web.Response) -> bytes:
    headers = [[k, v] for k, v in response.headers.items() if k.lower() not in _NOT_KEPT]
    head = json.dumps({"status": response.status, "headers": headers}, separators=(",", ":"))
    return f"1 {fp} {head}\n".encode() + (response.body or b"")


def _replay(stored: bytes) -> web.Response:
    head, _, body = stored.partition(b"\n")
    meta = json.loads(head.split(b" ", 2)[2])
    response = web.Response(body=body, status=meta["status"])
    for name, value in meta["headers"]:
        response.headers.add(name, value)
    response.headers[REPLAYED] = "true"
    return response


async def run_idempotent(request: web.Request, ctx: RequestContext, marker,
                         handle: Callable[[], Awaitable[web.Response]]) -> web.Response:
    """`handle()` once per (key, request) within 24 h; see the module docstring."""
    raw_key = request.headers.get(HEADER)
    if raw_key is None:
        return await handle()
    key = _check_key(raw_key)
    fp = fingerprint(request, await request.read())
    redis = ctx.services.redis
    rkey = _redis_key(ctx, key)
    token = uuid.uuid4().hex
    claim = _in_flight(fp, token)
    for _ in range(3):
        async with redis.pipeline(transaction=False) as pipe:
            pipe.set(rkey, claim, nx=True, ex=IN_FLIGHT_SECONDS)
            pipe.get(rkey)
            claimed, current = await pipe.execute()
        if claimed or current is not None:
            break  # else: released between the two commands; claim again
    if not claimed:
        if current is None or current.startswith(b"0 "):
            raise ApiError("IDEMPOTENCY_KEY_IN_USE", "A request with this Idempotency-Key is still being processed; "
                                                     "retry it once that one has finished.")
        if current.split(b" ", 2)[1].decode() != fp:
            raise ApiError("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was used with a different request "
                                                     "(method, path or body); use a new key for a new request.")
        return _replay(current)
    try:
        try:
            response = await handle()
        except ApiError as err:
            response = error_response(err, marker)
    except BaseException:
        await _release(redis, rkey, claim)
        raise
    if response.status >= 500 or response.status == 429 or not isinstance(response, web.Response):
        await _release(redis, rkey, claim)
        return response
    try:
        await redis.set(rkey, _record(fp, response), ex=KEEP_SECONDS)
    except Exception:  # noqa: BLE001 - the answer stands; the claim expires by itself
        log.exception("could not keep the response of an idempotent request")
    return response


async def _release(redis, rkey: str, claim: bytes) -> None:
    try:
        await redis.eval(_RELEASE, 1, rkey, claim)
    except Exception:  # noqa: BLE001 - the claim expires by itself
        log.exception("could not release an Idempotency-Key claim")
