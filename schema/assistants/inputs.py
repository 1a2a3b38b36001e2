"""Assistant input types: every field optional and unset by default (an update changes exactly what it
sends; an explicit null resets a setting to its default), typed so a wrong JSON type is 400
VALIDATION_ERROR. `payload()` (schema/tools/inputs.py) hands the domain the sent fields by API name."""
from __future__ import annotations

from typing import Any

import strawberry

from leadline.schema.tools.inputs import UNSET, payload


@strawberry.input
class AssistantChannelInput:
    activate: bool | None = UNSET
    deactivate: bool | None = UNSET
    platform: str | None = UNSET
    brand_number: str | None = strawberry.field(default=UNSET, description="Chat number (several connected).")
    page_id: str | None = strawberry.field(default=UNSET, description="Photoapp account or pageapp page (several).")


@strawberry.input
class AssistantInput:
    name: str | None = UNSET
    provider: str | None = UNSET
    model: str | None = UNSET
    is_active: bool | None = UNSET
    channel: AssistantChannelInput | None = UNSET
    system_prompt: str | None = UNSET
    max_tokens: int | None = UNSET
    temperature: float | None = UNSET
    top_p: float | None = UNSET
    tools: list[str] | None = strawberry.field(default=UNSET, description="Tool ids.")
    voice_enabled: bool | None = UNSET
    image_enabled: bool | None = UNSET
    media_in_tool_responses: bool | None = UNSET
    memory_minutes: int | None = UNSET
    message_delay: int | None = UNSET
    typing_enabled: bool | None = UNSET
    send_seen: bool | None = UNSET
    enable_command: str | None = UNSET
    disable_command: str | None = UNSET
    disable_duration: int | None = UNSET
    disable_on_interrupt: bool | None = UNSET
    group_chat_enabled: bool | None = UNSET
    group_activate_on_mention: bool | None = UNSET
    voice_response_enabled: bool | None = UNSET
    voice_provider: str | None = UNSET
    voice_model: str | None = UNSET
    voice_name: str | None = UNSET
    voice_prompt: str | None = UNSET
    phone_numbers_list: list[str] | None = UNSET
    is_numbers_excluded: bool | None = UNSET

    def to_domain(self) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """(the sent fields by API name, the channel request or None)."""
        sent = payload(self)
        channel = sent.pop("channel", None)
        sent.pop("clearChatHistory", None)
        return sent, channel


@strawberry.input
class AssistantUpdateInput(AssistantInput):
    clear_chat_history: bool | None = strawberry.field(default=UNSET,
                                                       description="Also clear the AI's per-channel chat memory.")
