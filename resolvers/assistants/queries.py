"""Reading assistants: one by id, the filtered list, history, options, the max_models usage, and the
assistant as the API shows it (`state`, which is also a history snapshot).

An organisation has at most a few dozen assistants (max_models): the list reads them through the
(org_id, created_at) index and filters and pages in Python.
"""
from __future__ import annotations

from typing import Any

from leadline.models.assistants import Assistant, AssistantVersion
from leadline.models.channels import PLATFORMS
from leadline.resolvers.assistants import catalogue
from leadline.resolvers.assistants.channels import channel_view
from leadline.resolvers.assistants.config import CONFIG_FIELDS, with_defaults
from leadline.resolvers.billing.usage import usage_counter
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.pagination import Page, page_request
from leadline.resolvers.tools import versioning

LIST_DEFAULT, LIST_MAX = 20, 100


def state(assistant: Assistant) -> dict[str, Any]:
    """The assistant's state in API names (no id, no timestamps): its history snapshots."""
    return {"name": assistant.name, "provider": assistant.provider, "model": assistant.model,
            "isActive": assistant.is_active, "isConnected": assistant.channel_key is not None,
            "channel": channel_view(assistant), **with_defaults(assistant.config),
            "tools": [str(t) for t in assistant.tools]}


def configuration(assistant: Assistant) -> dict[str, Any]:
    """What a configuration change compares: everything but isActive and the channel."""
    return {"name": assistant.name, "provider": assistant.provider, "model": assistant.model,
            **{k: v for k, v in with_defaults(assistant.config).items() if k in CONFIG_FIELDS},
            "tools": list(assistant.tools)}


def not_found() -> ApiError:
    return ApiError("ASSISTANT_NOT_FOUND", "No assistant with this modelId.")


async def get_assistant(ctx: RequestContext, model_id: str | None) -> Assistant:
    assistant = await Assistant.get_in(ctx, model_id) if isinstance(model_id, str) and len(model_id) == 24 else None
    if assistant is None:
        raise not_found()
    return assistant


def check_platform(platform: str | None) -> None:
    if platform is not None and platform not in PLATFORMS:
        raise ApiError("PLATFORM_INVALID", f"platform must be one of: {', '.join(PLATFORMS)}")


async def list_assistants(ctx: RequestContext, platform: str | None, name: str | None, is_active: bool | None,
                          is_connected: bool | None, page: int | None, limit: int | None) -> Page[Assistant]:
    req = page_request(page, limit, default=LIST_DEFAULT, maximum=LIST_MAX)
    check_platform(platform)
    needle = name.strip().lower() if name else None
    rows = await Assistant.find_in(ctx).sort([("created_at", -1)]).to_list()
    matching = [a for a in rows
                if (platform is None or a.channel_platform == platform)
                and (needle is None or needle in a.name.lower())
                and (is_active is None or a.is_active == is_active)
                and (is_connected is None or (a.channel_key is not None) == is_connected)]
    return Page(matching[req.skip:req.skip + req.limit], req.page, req.limit, len(matching))


async def history(ctx: RequestContext, model_id: str) -> list[AssistantVersion]:
    assistant = await get_assistant(ctx, model_id)
    return await versioning.entries(ctx, AssistantVersion, "assistant_id", assistant.id)


def options() -> dict[str, Any]:
    return catalogue.options()


@usage_counter("max_models")
async def count_assistants(org_id, timezone: str = "UTC") -> int:
    return await Assistant.count_in(org_id)
