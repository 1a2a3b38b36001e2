"""What every provider adapter offers, the values it reports, and the registry that picks one.

An adapter speaks to one messaging provider on behalf of one channel account.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from models.channels import ChannelAccount

LIVE_STATUSES = ("connected", "token_expired", "permission_denied", "not_configured", "missing_credentials",
                 "error", "unknown")


@dataclass(frozen=True)
class PhoneNumberInfo:
    verified_name: str | None
    quality_rating: str | None
    status: str | None


@dataclass(frozen=True)
class ProviderErrorInfo:
    http_status: int | None
    provider_error_code: int | None
    provider_error_subcode: int | None
    message: str


@dataclass(frozen=True)
class LiveStatus:
    live_status: str
    phone_number: PhoneNumberInfo | None = None
    phone_number_error: ProviderErrorInfo | None = None


class ProviderAdapter(Protocol):
    name: str

    async def check_health(self, account: ChannelAccount) -> LiveStatus: ...


class ProviderRegistry:
    """Picks the adapter of an account: its own `provider`, else the service default."""

    def __init__(self, default: str, adapters: dict[str, ProviderAdapter]) -> None:
        if default not in adapters:
            raise ValueError(f"unknown provider '{default}' (known: {', '.join(adapters)})")
        self.default = default
        self.adapters = adapters

    def for_account(self, account: ChannelAccount) -> ProviderAdapter:
        return self.adapters.get(account.provider or self.default) or self.adapters[self.default]

    async def close(self) -> None:
        for adapter in self.adapters.values():
            close = getattr(adapter, "close", None)
            if close is not None:
                await close()
