"""A validated request turned into WhatsApp Cloud API template components (what is stored and submitted)."""
from __future__ import annotations

from typing import Any

from leadline.resolvers.templates.request import AuthRequest, ButtonRequest, HeaderRequest, TemplateRequest


def build_components(req: TemplateRequest, media_handle: str | None = None) -> list[dict[str, Any]]:
    """Only call after validation passed; `media_handle` is the uploaded (or given) header sample."""
    if (req.category or "").upper() == "AUTHENTICATION":
        return _auth_components(req.auth or AuthRequest())
    components: list[dict[str, Any]] = []
    if req.header is not None and (req.header.format or "").upper() != "NONE":
        components.append(_header(req.header, media_handle))
    body = req.body
    if body is not None and body.text:
        component: dict[str, Any] = {"type": "BODY", "text": body.text}
        if body.example_variables:
            component["example"] = {"body_text": [list(body.example_variables)]}
        components.append(component)
    if req.footer is not None and req.footer.text:
        components.append({"type": "FOOTER", "text": req.footer.text})
    if req.buttons:
        components.append({"type": "BUTTONS", "buttons": [_button(b) for b in req.buttons]})
    return components


def _header(h: HeaderRequest, media_handle: str | None) -> dict[str, Any]:
    fmt = (h.format or "").upper()
    if fmt == "TEXT":
        component: dict[str, Any] = {"type": "HEADER", "format": "TEXT", "text": h.text}
        if h.example_variables:
            component["example"] = {"header_text": list(h.example_variables)}
        return component
    return {"type": "HEADER", "format": fmt, "example": {"header_handle": [media_handle or h.media_handle]}}


def _button(b: ButtonRequest) -> dict[str, Any]:
    kind = (b.type or "").upper()
    if kind == "URL":
        button: dict[str, Any] = {"type": "URL", "text": b.text, "url": b.url}
        if b.example_url_suffix:
            # The Cloud API wants the whole example URL, the variable filled in.
            button["example"] = [b.url.replace("{{1}}", b.example_url_suffix)]
        return button
    if kind == "PHONE_NUMBER":
        return {"type": "PHONE_NUMBER", "text": b.text, "phone_number": b.phone_number}
    if kind == "COPY_CODE":
        code = b.example[0] if isinstance(b.example, list) else b.example
        return {"type": "COPY_CODE", "example": code}
    return {"type": "QUICK_REPLY", "text": b.text}


def _auth_components(a: AuthRequest) -> list[dict[str, Any]]:
    body: dict[str, Any] = {"type": "BODY"}
    if a.add_security_recommendation is not None:
        body["add_security_recommendation"] = a.add_security_recommendation
    components = [body]
    if a.code_expiration_minutes is not None:
        components.append({"type": "FOOTER", "code_expiration_minutes": a.code_expiration_minutes})
    otp: dict[str, Any] = {"type": "OTP", "otp_type": (a.otp_type or "").upper()}
    if a.supported_apps:
        otp["supported_apps"] = [{"package_name": s.package_name, "signature_hash": s.signature_hash}
                                 for s in a.supported_apps]
    if a.zero_tap_terms_accepted is not None:
        otp["zero_tap_terms_accepted"] = a.zero_tap_terms_accepted
    components.append({"type": "BUTTONS", "buttons": [otp]})
    return components
