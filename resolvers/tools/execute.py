"""Running a tool for the dashboard's "test this tool" (GraphQL `testTool`), and recording the run.

`function` tools are called for real (URL placeholders, auth, enabled headers, bodyMode, timeout,
async, the secretToken signature, the SSRF guard of resolvers/netguard.py); `static_tool`
answers with its placeholders filled in; the other types record what they would send. Every run is
logged (resolvers/tools/runs.py) with the tool's secrets scrubbed from the URL and the result.
"""
from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import logging
import re
import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

import aiohttp
from yarl import URL

from leadline.models.tools import Tool, ToolRun
from leadline.resolvers import secrets
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import detail, validation_error
from leadline.resolvers.json_limits import readable
from leadline.resolvers.netguard import BlockedAddress
from leadline.resolvers.secrets import MASK
from leadline.resolvers.tools import outbound
from leadline.resolvers.tools.payload import revealed, secrets_of
from leadline.resolvers.tools.queries import get_tool
from leadline.resolvers.tools.rules import PLACEHOLDER, placeholders
from leadline.resolvers.tools.runs import result_text

log = logging.getLogger(__name__)
BODY_METHODS = ("POST", "PUT", "PATCH")
# A placeholder that is a whole JSON string value in customPayload ("{{name}}").
_WHOLE_STRING = re.compile(r'"\{\{\s*([^{}"]*?)\s*\}\}"')
# Fire-and-forget calls still running (a task without a reference may be collected mid-flight).
_BACKGROUND: set[asyncio.Task] = set()


@dataclass
class Outcome:
    status: str  # success, error, timeout
    result: Any = None
    error_message: str | None = None
    http_status: int | None = None
    request_url: str | None = None
    request_method: str | None = None


async def test_tool(ctx: RequestContext, tool_id: str, args: Any) -> ToolRun:
    tool = await get_tool(ctx, tool_id)
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise validation_error([detail("args", "INVALID_TYPE", "args must be an object of argument values")])
    keyring = await secrets.keyring(ctx.services.settings)
    config = revealed(tool.config, keyring)
    started = time.monotonic()
    runner = _function if tool.tool_type == "function" else _static if tool.tool_type == "static_tool" else _preview
    outcome = await runner(ctx, tool, config, args)
    duration = int((time.monotonic() - started) * 1000)
    hidden = secrets_of(tool.config, keyring)
    run = ToolRun.new(ctx, tool_id=tool.id, trace_id=uuid.uuid4().hex, tool_name=tool.name, tool_type=tool.tool_type,
                      status=outcome.status, error_message=_scrub(outcome.error_message, hidden),
                      duration_ms=duration, http_status=outcome.http_status,
                      request_url=_scrub(outcome.request_url, hidden), request_method=outcome.request_method,
                      args=json.loads(_scrub(json.dumps(args), hidden, json_text=True)),
                      result_json=_scrub(result_text(outcome.result), hidden, json_text=True))
    await run.insert()
    return run


def _scrub(text: str | None, hidden: list[str], *, json_text: bool = False) -> str | None:
    """`text` with every secret replaced by the mask (also as it appears JSON-escaped or URL-encoded)."""
    if text is None:
        return None
    for secret in sorted(hidden, key=len, reverse=True):
        forms = {secret, quote(secret, safe=""), json.dumps(secret)[1:-1]}
        for form in forms:
            text = text.replace(form, MASK)
    return text


# --- function -------------------------------------------------------------------------------
def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return json.dumps(value, separators=(",", ":"))


def _fill_custom(template: str, args: dict[str, Any]) -> str:
    """customPayload with its placeholders as JSON: a placeholder that is a whole string value becomes
    the argument's JSON value; one inside a string, the argument's text escaped for it."""
    def whole(match) -> str:
        return json.dumps(args.get(match.group(1).strip()))

    text = _WHOLE_STRING.sub(whole, template)

    def inner(match) -> str:
        value = args.get(match.group(1).strip())
        if isinstance(value, str):
            return json.dumps(value)[1:-1]
        return json.dumps(value)

    return PLACEHOLDER.sub(inner, text)


async def _function(ctx: RequestContext, tool: Tool, config: dict[str, Any], args: dict[str, Any]) -> Outcome:
    method = config["requestMethod"]
    used = list(dict.fromkeys(placeholders(config["serverUrl"])))
    missing = [name for name in used if args.get(name) is None]
    url = PLACEHOLDER.sub(lambda m: quote(_query_value(args.get(m.group(1).strip(), "")), safe=""),
                          config["serverUrl"])
    if missing:
        return Outcome("error", error_message=f"missing argument(s) for the URL: {', '.join(missing)}",
                       request_url=url, request_method=method)
    headers = {h["key"]: h.get("value", "") for h in config.get("headers") or [] if h.get("enabled", True)}
    params: dict[str, str] = {}
    auth = config.get("auth") or {}
    if auth.get("type") == "bearer":
        headers["Authorization"] = f"Bearer {auth['token']}"
    elif auth.get("type") == "basic":
        pair = f"{auth['username']}:{auth['password']}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
    elif auth.get("type") == "api_key":
        (headers if auth["apiKeyIn"] == "header" else params)[auth["apiKeyName"]] = auth["apiKeyValue"]
    data: bytes | None = None
    mode = config.get("bodyMode", "auto")
    if mode == "auto":
        rest = {k: v for k, v in args.items() if k not in used}
        if method in BODY_METHODS:
            data = json.dumps(rest).encode()
        else:
            params.update({k: _query_value(v) for k, v in rest.items() if v is not None})
    elif mode == "custom" and method in BODY_METHODS:
        data = _fill_custom(config["customPayload"], args).encode()
    if data is not None:
        headers.setdefault("Content-Type", "application/json")
    if config.get("secretToken"):
        signature = hmac.new(config["secretToken"].encode(), data or b"", hashlib.sha256).hexdigest()
        headers["X-Leadline-Signature"] = f"sha256={signature}"
    shown_url = str(URL(url).update_query(params)) if params else url
    call = outbound.request(method, url, headers=headers, params=params, data=data, timeout=config["timeout"],
                            allow_private=ctx.services.settings.is_development)
    if config.get("async"):
        task = asyncio.create_task(_quietly(call, tool))
        _BACKGROUND.add(task)
        task.add_done_callback(_BACKGROUND.discard)
        return Outcome("success", result={"async": True, "message": "Sent; the answer is not awaited (async)."},
                       request_url=shown_url, request_method=method)
    try:
        reply = await call
    except asyncio.TimeoutError:
        return Outcome("timeout", error_message=f"no answer within {config['timeout']} s", request_url=shown_url,
                       request_method=method)
    except BlockedAddress as exc:
        return Outcome("error", error_message=f"refused: {exc}", request_url=shown_url, request_method=method)
    except (aiohttp.ClientError, OSError, ValueError) as exc:
        return Outcome("error", error_message=f"the call failed: {outbound.describe(exc)}", request_url=shown_url,
                       request_method=method)
    result = _decoded(reply.body)
    ok = 200 <= reply.status < 300
    return Outcome("success" if ok else "error", result=result, http_status=reply.status,
                   error_message=None if ok else f"the endpoint answered HTTP {reply.status}",
                   request_url=shown_url, request_method=method)


async def _quietly(call, tool: Tool) -> None:
    try:
        await call
    except Exception as exc:  # noqa: BLE001 - fire and forget: nobody waits for the answer
        log.info("async call of tool %s failed: %s", tool.id, type(exc).__name__)


def _decoded(body: bytes) -> Any:
    truncated = len(body) > outbound.MAX_BODY
    text = body[:outbound.MAX_BODY].decode("utf-8", errors="replace")
    if not truncated:
        try:
            value = json.loads(text)
            if readable(value):
                return value
        except (ValueError, RecursionError):
            pass
    return text + ("… (truncated)" if truncated else "")


# --- static_tool ----------------------------------------------------------------------------
async def _static(ctx: RequestContext, tool: Tool, config: dict[str, Any], args: dict[str, Any]) -> Outcome:
    try:
        now = datetime.now(ZoneInfo(ctx.org.timezone if ctx.org else "UTC"))
    except (KeyError, ValueError):
        now = datetime.now(ZoneInfo("UTC"))
    values = {"current_date": now.strftime("%Y-%m-%d"), "current_time": now.strftime("%H:%M"),
              "current_datetime": now.strftime("%Y-%m-%d %H:%M"),
              "phone_number": str(args.get("phone_number") or args.get("phoneNumber") or "")}
    text = PLACEHOLDER.sub(lambda m: values.get(m.group(1).strip(), m.group(0)), config["response"])
    return Outcome("success", result={"response": text, "isStrict": config.get("isStrict", False)})


# --- the types that send messages or read a catalogue: what they would send -------------------
async def _preview(ctx: RequestContext, tool: Tool, config: dict[str, Any], args: dict[str, Any]) -> Outcome:
    kind = tool.tool_type
    if kind == "media_attachments":
        sends = [{"type": "media", "mediaId": media_id, "caption": config.get("response") if i == 0 else None}
                 for i, media_id in enumerate(config["mediaIds"])]
    elif kind == "message_templates":
        sends = [{"type": "interactive", "templateType": m["templateType"], "interactive": m["components"],
                  "mediaId": m.get("mediaId")} for m in [config, *tool.extra_messages]]
    elif kind in ("photoapp_templates", "pageapp_templates"):
        first = config["photoappComponents" if kind == "photoapp_templates" else "pageappComponents"]
        sends = [{"message": m["message"]} for m in [first, *(e["components"] for e in tool.extra_messages)]]
    else:
        action = dict(config["catalogAction" if kind == "native_catalog" else "storeappAction"])
        sends = [{"action": action.pop("type"), "limit": args.get("limit", action.pop("defaultLimit")), **action,
                  "arguments": args}]
    return Outcome("success", result={"preview": True, "wouldSend": sends})
