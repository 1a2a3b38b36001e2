"""Run logs: one entry per call of a tool, newest first, kept 15 days (a TTL index)."""
from __future__ import annotations

import json
from typing import Any

from leadline.models.tools import ToolRun
from leadline.resolvers.context import RequestContext
from leadline.resolvers.pagination import Page, page_request
from leadline.resolvers.tools.queries import get_tool

LIST_DEFAULT, LIST_MAX = 20, 100
RESULT_MAX = 32 * 1024


async def list_runs(ctx: RequestContext, tool_id: str, page: int | None, limit: int | None) -> Page[ToolRun]:
    req = page_request(page, limit, default=LIST_DEFAULT, maximum=LIST_MAX)
    tool = await get_tool(ctx, tool_id)
    total = await ToolRun.count_in(ctx, {"tool_id": tool.id})
    items = await (ToolRun.find_in(ctx, {"tool_id": tool.id}).sort([("created_at", -1)])
                   .skip(req.skip).limit(req.limit).to_list()) if req.skip < total else []
    return Page(items, req.page, req.limit, total)


def result_text(result: Any) -> str:
    """The result as stored: JSON text, or (past RESULT_MAX) the start of it as a JSON string."""
    text = json.dumps(result, ensure_ascii=False, default=str)
    if len(text) <= RESULT_MAX:
        return text
    return json.dumps(text[:RESULT_MAX] + "… (truncated)", ensure_ascii=False)


def result_of(run: ToolRun) -> Any:
    if run.result_json is None:
        return None
    try:
        return json.loads(run.result_json)
    except ValueError:
        return run.result_json
