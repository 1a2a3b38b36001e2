"""The create-template input, every field optional so the resolver reports all problems together,
and its explicit conversion to resolvers.templates.request. REST body names are kept as given
by the spec (camelCase, and snake_case for `phone_number` and the `auth` fields)."""
from __future__ import annotations

import strawberry

from leadline.resolvers.templates import request as r
from leadline.schema.scalars import JSON


@strawberry.input
class TemplateHeaderInput:
    format: str | None = None
    text: str | None = None
    example_variables: list[str] | None = None
    media_url: str | None = None
    media_handle: str | None = None
    filename: str | None = None


@strawberry.input
class TemplateBodyInput:
    text: str | None = None
    example_variables: list[str] | None = None


@strawberry.input
class TemplateFooterInput:
    text: str | None = None


@strawberry.input
class TemplateButtonInput:
    type: str | None = None
    text: str | None = None
    url: str | None = None
    example_url_suffix: str | None = None
    phone_number: str | None = strawberry.field(default=None, name="phone_number")
    example: JSON | None = None


@strawberry.input
class SupportedAppInput:
    package_name: str | None = strawberry.field(default=None, name="package_name")
    signature_hash: str | None = strawberry.field(default=None, name="signature_hash")


@strawberry.input
class TemplateAuthInput:
    otp_type: str | None = strawberry.field(default=None, name="otp_type")
    add_security_recommendation: bool | None = strawberry.field(default=None, name="add_security_recommendation")
    code_expiration_minutes: int | None = strawberry.field(default=None, name="code_expiration_minutes")
    supported_apps: list[SupportedAppInput] | None = strawberry.field(default=None, name="supported_apps")
    zero_tap_terms_accepted: bool | None = strawberry.field(default=None, name="zero_tap_terms_accepted")


@strawberry.input
class CreateTemplateInput:
    brand_number: str | None = None
    name: str | None = None
    language: str | None = None
    category: str | None = None
    header: TemplateHeaderInput | None = None
    body: TemplateBodyInput | None = None
    footer: TemplateFooterInput | None = None
    buttons: list[TemplateButtonInput] | None = None
    auth: TemplateAuthInput | None = None

    def to_domain(self) -> r.TemplateRequest:
        h, b, f, a = self.header, self.body, self.footer, self.auth
        return r.TemplateRequest(
            brand_number=self.brand_number, name=self.name, language=self.language, category=self.category,
            header=r.HeaderRequest(format=h.format, text=h.text, example_variables=h.example_variables,
                                   media_url=h.media_url, media_handle=h.media_handle, filename=h.filename)
            if h else None,
            body=r.BodyRequest(text=b.text, example_variables=b.example_variables) if b else None,
            footer=r.FooterRequest(text=f.text) if f else None,
            buttons=[r.ButtonRequest(type=x.type, text=x.text, url=x.url, example_url_suffix=x.example_url_suffix,
                                     phone_number=x.phone_number, example=x.example) for x in self.buttons]
            if self.buttons is not None else None,
            auth=r.AuthRequest(
                otp_type=a.otp_type, add_security_recommendation=a.add_security_recommendation,
                code_expiration_minutes=a.code_expiration_minutes,
                supported_apps=[r.SupportedApp(package_name=s.package_name, signature_hash=s.signature_hash)
                                for s in a.supported_apps] if a.supported_apps is not None else None,
                zero_tap_terms_accepted=a.zero_tap_terms_accepted) if a else None,
        )
