"""The assistants catalogue: AI providers and their models, platforms, voice providers, TTS models, voice
names and the bounds of the numeric settings. `GET /v2.0/assistants/options` returns it, and every
assistant validation reads it (nowhere else lists these values).

`sandbox` is a deterministic provider for tests and demos (the runtime answers without calling anyone).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leadline.models.channels import PLATFORMS

PROVIDER_MODELS: dict[str, tuple[str, ...]] = {
    "openai": ("gpt-4.1", "gpt-4.1-mini", "gpt-4o", "gpt-4o-mini"),
    "anthropic": ("claude-sonnet-4-5", "claude-haiku-4-5", "claude-3-5-haiku-latest"),
    "google": ("gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.0-flash"),
    "sandbox": ("sandbox-echo", "sandbox-scripted"),
}
PROVIDERS: tuple[str, ...] = tuple(PROVIDER_MODELS)

# Exactly four voice providers; each with its text-to-speech models and voices.
TTS_MODELS: dict[str, tuple[str, ...]] = {
    "openai": ("gpt-4o-mini-tts", "tts-1", "tts-1-hd"),
    "elevenlabs": ("eleven_multilingual_v2", "eleven_turbo_v2_5", "eleven_flash_v2_5"),
    "google": ("chirp3-hd", "neural2", "wavenet"),
    "azure": ("neural", "neural-hd"),
}
VOICE_NAMES: dict[str, tuple[str, ...]] = {
    "openai": ("alloy", "ash", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer"),
    "elevenlabs": ("Rachel", "Adam", "Bella", "Antoni", "Elli"),
    "google": ("en-US-Chirp3-HD-Aoede", "en-US-Neural2-C", "en-US-Neural2-D", "en-GB-Wavenet-A"),
    "azure": ("en-US-JennyNeural", "en-US-GuyNeural", "en-GB-SoniaNeural", "en-IN-NeerjaNeural"),
}
VOICE_PROVIDERS: tuple[str, ...] = tuple(TTS_MODELS)


@dataclass(frozen=True)
class Bound:
    min: float
    max: float
    default: float
    integer: bool = True

    def as_dict(self) -> dict[str, Any]:
        cast = int if self.integer else float
        return {"min": cast(self.min), "max": cast(self.max), "default": cast(self.default)}


LIMITS: dict[str, Bound] = {
    "maxTokens": Bound(1, 8000, 250),
    "temperature": Bound(0, 1, 0.7, integer=False),
    "topP": Bound(0, 1, 1, integer=False),
    "memoryMinutes": Bound(0, 10080, 60),
    "messageDelay": Bound(3, 60, 3),
    "disableDuration": Bound(0, 10080, 30),
}

SYSTEM_PROMPT_MAX = 32_000
VOICE_PROMPT_MAX = 4_000
COMMAND_MAX = 64
NAME_MAX = 100
PHONE_NUMBERS_MAX = 1_000
TOOLS_MAX = 128


def options() -> dict[str, Any]:
    return {"providers": list(PROVIDERS), "platforms": list(PLATFORMS),
            "providerModels": {p: list(m) for p, m in PROVIDER_MODELS.items()},
            "voiceProviders": list(VOICE_PROVIDERS), "ttsModels": {p: list(m) for p, m in TTS_MODELS.items()},
            "voiceNames": {p: list(v) for p, v in VOICE_NAMES.items()},
            "limits": {name: bound.as_dict() for name, bound in LIMITS.items()}}
