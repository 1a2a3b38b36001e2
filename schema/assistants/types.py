"""Assistant output types: the assistant (configuration fields at their defaults when unset), its channel,
its history entries and the options catalogue."""
from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Union

import strawberry

from leadline.models.assistants import Assistant, AssistantVersion
from leadline.resolvers.assistants.config import with_defaults
from leadline.schema.common import graphql_only
from leadline.schema.scalars import JSON
from leadline.schema.tools.types import ChangedBy


@strawberry.type
class AssistantChatChannel:
    platform: str
    phone: str


@strawberry.type
class AssistantPageChannel:
    platform: str
    page_id: str


AssistantChannel = Annotated[Union[AssistantChatChannel, AssistantPageChannel], strawberry.union("AssistantChannel")]


def _channel(a: Assistant) -> Any:
    if a.channel_key is None:
        return None
    if a.channel_platform == "chatapp":
        return AssistantChatChannel(platform="chatapp", phone=a.channel_number)
    return AssistantPageChannel(platform=a.channel_platform, page_id=a.channel_number)


@strawberry.type(name="Assistant")
class AssistantType:
    model_id: str
    name: str
    provider: str
    model: str
    is_active: bool
    is_connected: bool
    channel: AssistantChannel | None
    system_prompt: str
    max_tokens: int
    temperature: float
    top_p: float
    voice_enabled: bool
    image_enabled: bool
    media_in_tool_responses: bool
    memory_minutes: int
    message_delay: int
    typing_enabled: bool
    send_seen: bool
    enable_command: str | None
    disable_command: str | None
    disable_duration: int
    disable_on_interrupt: bool
    group_chat_enabled: bool
    group_activate_on_mention: bool
    voice_response_enabled: bool
    voice_provider: str | None
    voice_model: str | None
    voice_name: str | None
    voice_prompt: str | None
    phone_numbers_list: list[str]
    is_numbers_excluded: bool
    tools: list[str] = strawberry.field(description="Ids of the tools the assistant may call.")
    created_at: datetime
    updated_at: datetime
    chat_history_cleared_at: datetime | None = graphql_only(
        default=None, description="When clearChatHistory last cleared the AI memory (the runtime reads after it).")

    @classmethod
    def from_domain(cls, a: Assistant) -> "AssistantType":
        c = with_defaults(a.config)
        return cls(model_id=str(a.id), name=a.name, provider=a.provider, model=a.model, is_active=a.is_active,
                   is_connected=a.channel_key is not None, channel=_channel(a), system_prompt=c["systemPrompt"],
                   max_tokens=c["maxTokens"], temperature=c["temperature"], top_p=c["topP"],
                   voice_enabled=c["voiceEnabled"], image_enabled=c["imageEnabled"],
                   media_in_tool_responses=c["mediaInToolResponses"], memory_minutes=c["memoryMinutes"],
                   message_delay=c["messageDelay"], typing_enabled=c["typingEnabled"], send_seen=c["sendSeen"],
                   enable_command=c["enableCommand"], disable_command=c["disableCommand"],
                   disable_duration=c["disableDuration"], disable_on_interrupt=c["disableOnInterrupt"],
                   group_chat_enabled=c["groupChatEnabled"], group_activate_on_mention=c["groupActivateOnMention"],
                   voice_response_enabled=c["voiceResponseEnabled"], voice_provider=c["voiceProvider"],
                   voice_model=c["voiceModel"], voice_name=c["voiceName"], voice_prompt=c["voicePrompt"],
                   phone_numbers_list=list(c["phoneNumbersList"]), is_numbers_excluded=c["isNumbersExcluded"],
                   tools=[str(t) for t in a.tools], created_at=a.created_at, updated_at=a.updated_at,
                   chat_history_cleared_at=a.chat_history_cleared_at)


@strawberry.type
class AssistantDeleted:
    model_id: str
    name: str
    deleted: bool

    @classmethod
    def from_domain(cls, a: Assistant) -> "AssistantDeleted":
        return cls(model_id=str(a.id), name=a.name, deleted=True)


@strawberry.type(name="AssistantVersion")
class AssistantVersionType:
    version_number: int
    change_type: str
    change_description: str
    changed_at: datetime
    changed_by: ChangedBy
    snapshot: JSON = strawberry.field(description="The assistant after the change.")

    @classmethod
    def from_domain(cls, v: AssistantVersion) -> "AssistantVersionType":
        return cls(version_number=v.version_number, change_type=v.change_type, change_description=v.change_description,
                   changed_at=v.changed_at, changed_by=ChangedBy.from_domain(v.changed_by), snapshot=v.snapshot)


@strawberry.type
class IntBound:
    min: int
    max: int
    default: int


@strawberry.type
class FloatBound:
    min: float
    max: float
    default: float


@strawberry.type
class AssistantLimits:
    max_tokens: IntBound
    temperature: FloatBound
    top_p: FloatBound
    memory_minutes: IntBound
    message_delay: IntBound
    disable_duration: IntBound


@strawberry.type
class AssistantOptions:
    providers: list[str]
    platforms: list[str]
    provider_models: JSON = strawberry.field(description="{provider: [model ids]}")
    voice_providers: list[str]
    tts_models: JSON = strawberry.field(description="{voiceProvider: [TTS model ids]}")
    voice_names: JSON = strawberry.field(description="{voiceProvider: [voice names]}")
    limits: AssistantLimits

    @classmethod
    def from_domain(cls, o: dict[str, Any]) -> "AssistantOptions":
        lim = o["limits"]
        limits = AssistantLimits(max_tokens=IntBound(**lim["maxTokens"]), temperature=FloatBound(**lim["temperature"]),
                                 top_p=FloatBound(**lim["topP"]), memory_minutes=IntBound(**lim["memoryMinutes"]),
                                 message_delay=IntBound(**lim["messageDelay"]),
                                 disable_duration=IntBound(**lim["disableDuration"]))
        return cls(providers=o["providers"], platforms=o["platforms"], provider_models=o["providerModels"],
                   voice_providers=o["voiceProviders"], tts_models=o["ttsModels"], voice_names=o["voiceNames"],
                   limits=limits)
