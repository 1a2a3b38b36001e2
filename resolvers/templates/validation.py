"""Every local rule of a template submission, all failures collected into one list of details.

The spec's rules come first in each section; where the spec leaves a rule open (per-button
rules, body variables at the edges, header newlines) the WhatsApp Cloud API's documented rules
apply. docs/templates.md lists them all with their codes.
"""
from __future__ import annotations

import re
from urllib.parse import urlsplit

from leadline.models.templates import CATEGORIES, MEDIA_FORMATS
from leadline.resolvers.errors import detail
from leadline.resolvers.templates.request import AuthRequest, ButtonRequest, HeaderRequest, TemplateRequest

NAME = re.compile(r"^[a-z][a-z0-9_]{0,511}$")
# Cloud API language codes: `en`, `fil`, `en_US`, `pt_BR`. The provider holds the exact list.
LANGUAGE = re.compile(r"^[a-z]{2,3}(_[A-Z]{2})?$")
HEADER_FORMATS = ("NONE", "TEXT", *MEDIA_FORMATS)
BUTTON_TYPES = ("QUICK_REPLY", "URL", "PHONE_NUMBER", "COPY_CODE")
OTP_TYPES = ("COPY_CODE", "ONE_TAP", "ZERO_TAP")
# Per-type caps (spec) and the total.
BUTTON_CAPS = {"URL": 2, "PHONE_NUMBER": 1, "COPY_CODE": 1}
MAX_BUTTONS = 10
# Cloud API lengths.
HEADER_TEXT_MAX, BODY_TEXT_MAX, FOOTER_TEXT_MAX = 60, 1024, 60
BUTTON_TEXT_MAX, URL_MAX, PHONE_MAX, COPY_CODE_MAX = 25, 2000, 20, 15
CODE_EXPIRATION = (1, 90)
MAX_SUPPORTED_APPS = 5

_PLACEHOLDER = re.compile(r"\{\{([^{}]*)\}\}")
_ADJACENT = re.compile(r"\}\}\s*\{\{")
_PHONE = re.compile(r"^\+?[1-9]\d{5,19}$")
_PACKAGE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$")
_SIGNATURE_HASH = re.compile(r"^[A-Za-z0-9+/=]{11}$")
_EMOJI = re.compile(
    "[\U0001F000-\U0001FAFF\U00002600-\U000027BF\U00002B00-\U00002BFF\U00002300-\U000023FF\u200d\ufe0f]"
)


class Report:
    """The collected failures, in the order the rules ran."""

    def __init__(self) -> None:
        self.details: list[dict[str, str]] = []

    def add(self, path: str, code: str, message: str) -> None:
        self.details.append(detail(path, code, message))


def validate(req: TemplateRequest) -> list[dict[str, str]]:
    report = Report()
    if not req.name:
        report.add("name", "REQUIRED", "name is required")
    elif not NAME.match(req.name):
        report.add("name", "INVALID_NAME",
                   "name must start with a lowercase letter and hold only a-z, 0-9 and '_' (at most 512)")
    if not req.language:
        report.add("language", "REQUIRED", "language is required")
    elif not LANGUAGE.match(req.language):
        report.add("language", "INVALID_LANGUAGE", "language must be a locale code such as 'en' or 'en_US'")
    category = (req.category or "").upper()
    if not req.category:
        report.add("category", "REQUIRED", "category is required")
    elif category not in CATEGORIES:
        report.add("category", "INVALID_CATEGORY", f"category must be one of: {', '.join(CATEGORIES)}")
        return report.details  # the other rules depend on the category
    if category == "AUTHENTICATION":
        _authentication(req, report)
    else:
        _content(req, report)
    return report.details


# --- MARKETING / UTILITY ---------------------------------------------------------------------
def _content(req: TemplateRequest, report: Report) -> None:
    if req.auth is not None:
        report.add("auth", "NOT_ALLOWED_FOR_CATEGORY", "auth is only for AUTHENTICATION templates")
    if req.header is not None:
        _header(req.header, report)
    body = req.body
    if body is None or not body.text:
        report.add("body.text", "REQUIRED", "body.text is required for MARKETING and UTILITY templates")
    else:
        _body(body.text, body.example_variables, report)
    if req.footer is not None:
        _footer(req.footer.text, report)
    if req.buttons:
        _buttons(req.buttons, report)


def _header(h: HeaderRequest, report: Report) -> None:
    fmt = (h.format or "").upper()
    if not h.format:
        report.add("header.format", "REQUIRED", f"header.format is required: {', '.join(HEADER_FORMATS)}")
        return
    if fmt not in HEADER_FORMATS:
        report.add("header.format", "INVALID_FORMAT", f"header.format must be one of: {', '.join(HEADER_FORMATS)}")
        return
    media_fields = {"mediaUrl": h.media_url, "mediaHandle": h.media_handle, "filename": h.filename}
    if fmt in ("NONE", "TEXT"):
        for name, value in media_fields.items():
            if value is not None:
                report.add(f"header.{name}", "NOT_ALLOWED_FOR_FORMAT", f"header.{name} is only for media headers")
    if fmt == "NONE":
        for name, value in (("text", h.text), ("exampleVariables", h.example_variables)):
            if value is not None:
                report.add(f"header.{name}", "NOT_ALLOWED_FOR_FORMAT", f"header.{name} is not used with format NONE")
    elif fmt == "TEXT":
        _header_text(h, report)
    else:
        _header_media(h, fmt, report)


def _header_text(h: HeaderRequest, report: Report) -> None:
    text = h.text or ""
    if not text:
        report.add("header.text", "REQUIRED", "header.text is required for a TEXT header")
        return
    if len(text) > HEADER_TEXT_MAX:
        report.add("header.text", "TOO_LONG", f"header.text is at most {HEADER_TEXT_MAX} characters")
    if _EMOJI.search(text):
        report.add("header.text", "EMOJI_NOT_ALLOWED", "header.text must not contain emoji")
    if "\n" in text or "\r" in text or "*" in text:
        report.add("header.text", "FORMATTING_NOT_ALLOWED", "header.text must not contain newlines or '*'")
    placeholders = _PLACEHOLDER.findall(text)
    if any(p != "1" for p in placeholders):
        report.add("header.text", "INVALID_VARIABLE", "the only variable a header takes is {{1}}")
    elif len(placeholders) > 1:
        report.add("header.text", "TOO_MANY_VARIABLES", "header.text holds at most one {{1}}")
    _examples("header.exampleVariables", 1 if placeholders else 0, h.example_variables, report)


def _header_media(h: HeaderRequest, fmt: str, report: Report) -> None:
    if h.text is not None:
        report.add("header.text", "NOT_ALLOWED_FOR_FORMAT", "header.text is only for TEXT headers")
    if h.example_variables is not None:
        report.add("header.exampleVariables", "NOT_ALLOWED_FOR_FORMAT", "media headers take no variables")
    if h.media_url and h.media_handle:
        report.add("header.mediaHandle", "MEDIA_SOURCE_CONFLICT", "give exactly one of mediaUrl or mediaHandle")
    elif not h.media_url and not h.media_handle:
        report.add("header.mediaUrl", "MEDIA_REQUIRED", f"a {fmt} header needs mediaUrl or mediaHandle")
    elif h.media_url and not _is_http_url(h.media_url):
        report.add("header.mediaUrl", "INVALID_URL", "header.mediaUrl must be an absolute http(s) URL")
    if h.filename is not None and fmt != "DOCUMENT":
        report.add("header.filename", "NOT_ALLOWED_FOR_FORMAT", "header.filename is only for DOCUMENT headers")
    elif fmt == "DOCUMENT" and h.filename is not None and not h.filename.strip():
        report.add("header.filename", "EMPTY", "header.filename must not be empty")


def _body(text: str, examples: list[str] | None, report: Report) -> None:
    if len(text) > BODY_TEXT_MAX:
        report.add("body.text", "TOO_LONG", f"body.text is at most {BODY_TEXT_MAX} characters")
    placeholders = _PLACEHOLDER.findall(text)
    if any(not p.isdigit() for p in placeholders):
        report.add("body.text", "INVALID_VARIABLE", "variables are written {{1}}, {{2}}, ... (digits only)")
        return
    numbers = sorted({int(p) for p in placeholders})
    if numbers != list(range(1, len(numbers) + 1)):
        report.add("body.text", "VARIABLES_NOT_SEQUENTIAL",
                   f"variables must be numbered {{{{1}}}} to {{{{n}}}} without gaps (found {numbers})")
    stripped = text.strip()
    if placeholders and (stripped.startswith("{{") or stripped.endswith("}}")):
        report.add("body.text", "VARIABLE_AT_EDGE", "body.text must not start or end with a variable")
    if _ADJACENT.search(text):
        report.add("body.text", "ADJACENT_VARIABLES", "variables must be separated by text")
    _examples("body.exampleVariables", len(numbers), examples, report)


def _examples(path: str, expected: int, examples: list[str] | None, report: Report) -> None:
    given = examples or []
    if len(given) != expected:
        report.add(path, "EXAMPLE_MISMATCH", f"{path} must hold {expected} value(s), one per variable "
                                             f"(got {len(given)})")
    for i, value in enumerate(given):
        if not str(value).strip():
            report.add(f"{path}[{i}]", "EMPTY", "example values must not be empty")


def _footer(text: str | None, report: Report) -> None:
    if not text:
        report.add("footer.text", "REQUIRED", "footer.text is required when footer is given")
        return
    if len(text) > FOOTER_TEXT_MAX:
        report.add("footer.text", "TOO_LONG", f"footer.text is at most {FOOTER_TEXT_MAX} characters")
    if "{{" in text or "}}" in text:
        report.add("footer.text", "VARIABLES_NOT_ALLOWED", "footer.text takes no variables")


def _buttons(buttons: list[ButtonRequest], report: Report) -> None:
    if len(buttons) > MAX_BUTTONS:
        report.add("buttons", "TOO_MANY_BUTTONS", f"at most {MAX_BUTTONS} buttons")
    seen: dict[str, int] = {}
    for i, button in enumerate(buttons):
        kind = (button.type or "").upper()
        if not button.type:
            report.add(f"buttons[{i}].type", "REQUIRED", f"type is required: {', '.join(BUTTON_TYPES)}")
            continue
        if kind not in BUTTON_TYPES:
            report.add(f"buttons[{i}].type", "INVALID_BUTTON_TYPE", f"type must be one of: {', '.join(BUTTON_TYPES)}")
            continue
        seen[kind] = seen.get(kind, 0) + 1
        if kind in BUTTON_CAPS and seen[kind] == BUTTON_CAPS[kind] + 1:
            report.add(f"buttons[{i}].type", f"TOO_MANY_{kind}_BUTTONS", f"at most {BUTTON_CAPS[kind]} {kind} button(s)")
        _button(i, kind, button, report)
    _grouping(buttons, report)


def _button(i: int, kind: str, b: ButtonRequest, report: Report) -> None:
    at = f"buttons[{i}]"
    allowed = {"QUICK_REPLY": {"text"}, "URL": {"text", "url", "exampleUrlSuffix"},
               "PHONE_NUMBER": {"text", "phone_number"}, "COPY_CODE": {"example"}}[kind]
    given = {"text": b.text, "url": b.url, "exampleUrlSuffix": b.example_url_suffix,
             "phone_number": b.phone_number, "example": b.example}
    for name, value in given.items():
        if value is not None and name not in allowed:
            report.add(f"{at}.{name}", "NOT_ALLOWED_FOR_TYPE", f"{name} is not used on a {kind} button")
    if "text" in allowed:
        if not b.text:
            report.add(f"{at}.text", "REQUIRED", "button text is required")
        else:
            if len(b.text) > BUTTON_TEXT_MAX:
                report.add(f"{at}.text", "TOO_LONG", f"button text is at most {BUTTON_TEXT_MAX} characters")
            if "{{" in b.text:
                report.add(f"{at}.text", "VARIABLES_NOT_ALLOWED", "button text takes no variables")
    if kind == "URL":
        _url_button(at, b, report)
    elif kind == "PHONE_NUMBER":
        if not b.phone_number:
            report.add(f"{at}.phone_number", "REQUIRED", "phone_number is required on a PHONE_NUMBER button")
        elif not _PHONE.match(b.phone_number.replace(" ", "").replace("-", "")):
            report.add(f"{at}.phone_number", "INVALID_PHONE_NUMBER",
                       "phone_number is an international number with country code, at most 20 characters")
    elif kind == "COPY_CODE":
        code = b.example[0] if isinstance(b.example, list) and len(b.example) == 1 else b.example
        if code is None or code == "":
            report.add(f"{at}.example", "REQUIRED", "a COPY_CODE button needs an example code")
        elif not isinstance(code, str) or len(code) > COPY_CODE_MAX:
            report.add(f"{at}.example", "INVALID_EXAMPLE", f"the example code is a string of at most {COPY_CODE_MAX} characters")


def _url_button(at: str, b: ButtonRequest, report: Report) -> None:
    if not b.url:
        report.add(f"{at}.url", "REQUIRED", "url is required on a URL button")
        return
    if len(b.url) > URL_MAX:
        report.add(f"{at}.url", "TOO_LONG", f"url is at most {URL_MAX} characters")
    placeholders = _PLACEHOLDER.findall(b.url)
    if not _is_http_url(_PLACEHOLDER.sub("x", b.url)):
        report.add(f"{at}.url", "INVALID_URL", "url must be an absolute http(s) URL")
    elif placeholders and (placeholders != ["1"] or not b.url.endswith("{{1}}")):
        report.add(f"{at}.url", "INVALID_VARIABLE", "a URL button takes one variable, {{1}}, at the end of the url")
    if placeholders and not b.example_url_suffix:
        report.add(f"{at}.exampleUrlSuffix", "REQUIRED", "a url with {{1}} needs exampleUrlSuffix")
    elif not placeholders and b.example_url_suffix is not None:
        report.add(f"{at}.exampleUrlSuffix", "NOT_ALLOWED", "exampleUrlSuffix is only for a url ending in {{1}}")


def _grouping(buttons: list[ButtonRequest], report: Report) -> None:
    """Cloud API: quick replies and call-to-action buttons must not be interleaved."""
    groups: list[bool] = []
    for b in buttons:
        is_quick = (b.type or "").upper() == "QUICK_REPLY"
        if not groups or groups[-1] != is_quick:
            groups.append(is_quick)
    if len(groups) > 2:
        report.add("buttons", "BUTTONS_NOT_GROUPED", "QUICK_REPLY buttons must be grouped together, "
                                                     "before or after the other buttons")


# --- AUTHENTICATION --------------------------------------------------------------------------
def _authentication(req: TemplateRequest, report: Report) -> None:
    for name, value in (("header", req.header), ("body", req.body), ("footer", req.footer), ("buttons", req.buttons)):
        if value is not None:
            report.add(name, "NOT_ALLOWED_FOR_CATEGORY",
                       f"{name} is only for MARKETING and UTILITY templates (AUTHENTICATION uses auth)")
    if req.auth is None:
        report.add("auth", "REQUIRED", "auth is required for AUTHENTICATION templates")
        return
    _auth(req.auth, report)


def _auth(a: AuthRequest, report: Report) -> None:
    otp = (a.otp_type or "").upper()
    if not a.otp_type:
        report.add("auth.otp_type", "REQUIRED", f"otp_type is required: {', '.join(OTP_TYPES)}")
    elif otp not in OTP_TYPES:
        report.add("auth.otp_type", "INVALID_OTP_TYPE", f"otp_type must be one of: {', '.join(OTP_TYPES)}")
    if a.code_expiration_minutes is not None and not CODE_EXPIRATION[0] <= a.code_expiration_minutes <= CODE_EXPIRATION[1]:
        report.add("auth.code_expiration_minutes", "OUT_OF_RANGE",
                   f"code_expiration_minutes is {CODE_EXPIRATION[0]} to {CODE_EXPIRATION[1]}")
    needs_apps = otp in ("ONE_TAP", "ZERO_TAP")
    apps = a.supported_apps
    if needs_apps and not apps:
        report.add("auth.supported_apps", "REQUIRED", f"{otp} needs supported_apps (package_name, signature_hash)")
    elif apps and otp == "COPY_CODE":
        report.add("auth.supported_apps", "NOT_ALLOWED", "supported_apps is only for ONE_TAP and ZERO_TAP")
    elif apps:
        if len(apps) > MAX_SUPPORTED_APPS:
            report.add("auth.supported_apps", "TOO_MANY", f"at most {MAX_SUPPORTED_APPS} supported apps")
        for i, app in enumerate(apps):
            if not app.package_name or not _PACKAGE.match(app.package_name) or len(app.package_name) > 224:
                report.add(f"auth.supported_apps[{i}].package_name", "INVALID_PACKAGE_NAME",
                           "package_name is an Android package name such as com.example.app")
            if not app.signature_hash or not _SIGNATURE_HASH.match(app.signature_hash):
                report.add(f"auth.supported_apps[{i}].signature_hash", "INVALID_SIGNATURE_HASH",
                           "signature_hash is the app's 11-character signing-key hash")
    if otp == "ZERO_TAP" and a.zero_tap_terms_accepted is not True:
        report.add("auth.zero_tap_terms_accepted", "TERMS_NOT_ACCEPTED", "ZERO_TAP needs zero_tap_terms_accepted: true")
    elif otp in ("COPY_CODE", "ONE_TAP") and a.zero_tap_terms_accepted is not None:
        report.add("auth.zero_tap_terms_accepted", "NOT_ALLOWED", "zero_tap_terms_accepted is only for ZERO_TAP")


def _is_http_url(value: str) -> bool:
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and " " not in value
