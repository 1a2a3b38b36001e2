"""The create-template request as the resolvers see it (schema/templates converts the GraphQL input).

Field names mirror the REST body; `details[].path` uses the REST spelling (validation.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class HeaderRequest:
    format: str | None = None
    text: str | None = None
    example_variables: list[str] | None = None
    media_url: str | None = None
    media_handle: str | None = None
    filename: str | None = None


@dataclass(frozen=True)
class BodyRequest:
    text: str | None = None
    example_variables: list[str] | None = None


@dataclass(frozen=True)
class FooterRequest:
    text: str | None = None


@dataclass(frozen=True)
class ButtonRequest:
    type: str | None = None
    text: str | None = None
    url: str | None = None
    example_url_suffix: str | None = None
    phone_number: str | None = None
    # COPY_CODE: the sample code (a string; one-element lists are accepted).
    example: Any = None


@dataclass(frozen=True)
class SupportedApp:
    package_name: str | None = None
    signature_hash: str | None = None


@dataclass(frozen=True)
class AuthRequest:
    otp_type: str | None = None
    add_security_recommendation: bool | None = None
    code_expiration_minutes: int | None = None
    supported_apps: list[SupportedApp] | None = None
    zero_tap_terms_accepted: bool | None = None


@dataclass(frozen=True)
class TemplateRequest:
    brand_number: str | None = None
    name: str | None = None
    language: str | None = None
    category: str | None = None
    header: HeaderRequest | None = None
    body: BodyRequest | None = None
    footer: FooterRequest | None = None
    buttons: list[ButtonRequest] | None = None
    auth: AuthRequest | None = None
