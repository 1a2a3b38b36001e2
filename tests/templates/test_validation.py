"""POST /v2.0/templates: each local rule refused with its details path and code, all failures together."""
from __future__ import annotations

import pytest

from tests.helpers import assert_error, make_tenant
from tests.templates.support import authentication, connect_brand, marketing


def _buttons(*buttons):
    return list(buttons)


QR = {"type": "QUICK_REPLY", "text": "Yes"}
URL = {"type": "URL", "text": "Shop", "url": "https://shop.example.com/"}
PHONE = {"type": "PHONE_NUMBER", "text": "Call", "phone_number": "+15550002222"}
COPY = {"type": "COPY_CODE", "example": "CODE1"}
ONE_TAP_APP = {"package_name": "com.example.app", "signature_hash": "K8a/AINcGX7"}

CASES = [
    # name, language, category
    ("name-pattern", marketing(name="Summer-Sale"), "name", "INVALID_NAME"),
    ("name-missing", marketing(name=None), "name", "REQUIRED"),
    ("name-too-long", marketing(name="a" * 513), "name", "INVALID_NAME"),
    ("language", marketing(language="english"), "language", "INVALID_LANGUAGE"),
    ("language-missing", marketing(language=None), "language", "REQUIRED"),
    ("category", marketing(category="PROMO"), "category", "INVALID_CATEGORY"),
    ("category-missing", marketing(category=None), "category", "REQUIRED"),
    # header
    ("header-format", marketing(header={"format": "GIF"}), "header.format", "INVALID_FORMAT"),
    ("header-format-missing", marketing(header={"text": "Hi"}), "header.format", "REQUIRED"),
    ("header-text-missing", marketing(header={"format": "TEXT"}), "header.text", "REQUIRED"),
    ("header-text-60", marketing(header={"format": "TEXT", "text": "x" * 61}), "header.text", "TOO_LONG"),
    ("header-emoji", marketing(header={"format": "TEXT", "text": "Sale \U0001F389"}), "header.text",
     "EMOJI_NOT_ALLOWED"),
    ("header-newline", marketing(header={"format": "TEXT", "text": "Big\nsale"}), "header.text",
     "FORMATTING_NOT_ALLOWED"),
    ("header-two-variables", marketing(header={"format": "TEXT", "text": "{{1}} and {{1}}", "exampleVariables": ["a"]}),
     "header.text", "TOO_MANY_VARIABLES"),
    ("header-variable-2", marketing(header={"format": "TEXT", "text": "Hi {{2}}", "exampleVariables": ["a"]}),
     "header.text", "INVALID_VARIABLE"),
    ("header-example-missing", marketing(header={"format": "TEXT", "text": "Hi {{1}}"}),
     "header.exampleVariables", "EXAMPLE_MISMATCH"),
    ("header-text-media-url", marketing(header={"format": "TEXT", "text": "Hi", "mediaUrl": "https://x.example/a.png"}),
     "header.mediaUrl", "NOT_ALLOWED_FOR_FORMAT"),
    ("header-none-text", marketing(header={"format": "NONE", "text": "Hi"}), "header.text", "NOT_ALLOWED_FOR_FORMAT"),
    ("header-media-missing", marketing(header={"format": "IMAGE"}), "header.mediaUrl", "MEDIA_REQUIRED"),
    ("header-media-both", marketing(header={"format": "VIDEO", "mediaUrl": "https://x.example/a.mp4",
                                            "mediaHandle": "4::abc"}), "header.mediaHandle", "MEDIA_SOURCE_CONFLICT"),
    ("header-media-url", marketing(header={"format": "IMAGE", "mediaUrl": "ftp://x.example/a.png"}),
     "header.mediaUrl", "INVALID_URL"),
    ("header-filename-image", marketing(header={"format": "IMAGE", "mediaHandle": "4::abc", "filename": "a.png"}),
     "header.filename", "NOT_ALLOWED_FOR_FORMAT"),
    ("header-media-text", marketing(header={"format": "DOCUMENT", "mediaHandle": "4::abc", "text": "Hi"}),
     "header.text", "NOT_ALLOWED_FOR_FORMAT"),
    # body
    ("body-missing", marketing(body=None), "body.text", "REQUIRED"),
    ("body-too-long", marketing(body={"text": "x" * 1025}), "body.text", "TOO_LONG"),
    ("body-gap", marketing(body={"text": "Hi {{1}}, see {{3}} now", "exampleVariables": ["a", "b"]}),
     "body.text", "VARIABLES_NOT_SEQUENTIAL"),
    ("body-named", marketing(body={"text": "Hi {{name}} now"}), "body.text", "INVALID_VARIABLE"),
    ("body-edge", marketing(body={"text": "{{1}} is ready", "exampleVariables": ["a"]}), "body.text",
     "VARIABLE_AT_EDGE"),
    ("body-adjacent", marketing(body={"text": "Hi {{1}}{{2}} now", "exampleVariables": ["a", "b"]}), "body.text",
     "ADJACENT_VARIABLES"),
    ("body-examples-count", marketing(body={"text": "Hi {{1}} and {{2}} now", "exampleVariables": ["a"]}),
     "body.exampleVariables", "EXAMPLE_MISMATCH"),
    ("body-example-empty", marketing(body={"text": "Hi {{1}} now", "exampleVariables": [" "]}),
     "body.exampleVariables[0]", "EMPTY"),
    # footer
    ("footer-60", marketing(footer={"text": "x" * 61}), "footer.text", "TOO_LONG"),
    ("footer-variable", marketing(footer={"text": "Bye {{1}}"}), "footer.text", "VARIABLES_NOT_ALLOWED"),
    # buttons
    ("buttons-10", marketing(buttons=[QR] * 11), "buttons", "TOO_MANY_BUTTONS"),
    ("buttons-url-2", marketing(buttons=_buttons(URL, URL, URL)), "buttons[2].type", "TOO_MANY_URL_BUTTONS"),
    ("buttons-phone-1", marketing(buttons=_buttons(PHONE, PHONE)), "buttons[1].type",
     "TOO_MANY_PHONE_NUMBER_BUTTONS"),
    ("buttons-copy-1", marketing(buttons=_buttons(COPY, COPY)), "buttons[1].type", "TOO_MANY_COPY_CODE_BUTTONS"),
    ("button-type", marketing(buttons=_buttons({"type": "FLOW", "text": "Go"})), "buttons[0].type",
     "INVALID_BUTTON_TYPE"),
    ("button-type-missing", marketing(buttons=_buttons({"text": "Go"})), "buttons[0].type", "REQUIRED"),
    ("button-text-25", marketing(buttons=_buttons({"type": "QUICK_REPLY", "text": "x" * 26})), "buttons[0].text",
     "TOO_LONG"),
    ("button-text-missing", marketing(buttons=_buttons({"type": "QUICK_REPLY"})), "buttons[0].text", "REQUIRED"),
    ("quick-reply-url", marketing(buttons=_buttons({**QR, "url": "https://x.example"})), "buttons[0].url",
     "NOT_ALLOWED_FOR_TYPE"),
    ("url-missing", marketing(buttons=_buttons(QR, QR, {"type": "URL", "text": "Shop"})), "buttons[2].url",
     "REQUIRED"),
    ("url-invalid", marketing(buttons=_buttons(QR, QR, {**URL, "url": "shop.example.com"})), "buttons[2].url",
     "INVALID_URL"),
    ("url-variable-middle", marketing(buttons=_buttons(QR, QR, {**URL, "url": "https://x.example/{{1}}/a",
                                                                "exampleUrlSuffix": "a"})),
     "buttons[2].url", "INVALID_VARIABLE"),
    ("url-suffix-missing", marketing(buttons=_buttons(QR, QR, {**URL, "url": "https://x.example/{{1}}"})),
     "buttons[2].exampleUrlSuffix", "REQUIRED"),
    ("url-suffix-unused", marketing(buttons=_buttons({**URL, "exampleUrlSuffix": "a"})),
     "buttons[0].exampleUrlSuffix", "NOT_ALLOWED"),
    ("phone-missing", marketing(buttons=_buttons({"type": "PHONE_NUMBER", "text": "Call"})),
     "buttons[0].phone_number", "REQUIRED"),
    ("phone-invalid", marketing(buttons=_buttons({**PHONE, "phone_number": "call-me"})), "buttons[0].phone_number",
     "INVALID_PHONE_NUMBER"),
    ("copy-code-missing", marketing(buttons=_buttons({"type": "COPY_CODE"})), "buttons[0].example", "REQUIRED"),
    ("copy-code-15", marketing(buttons=_buttons({"type": "COPY_CODE", "example": "X" * 16})), "buttons[0].example",
     "INVALID_EXAMPLE"),
    ("copy-code-text", marketing(buttons=_buttons({**COPY, "text": "Copy"})), "buttons[0].text",
     "NOT_ALLOWED_FOR_TYPE"),
    ("buttons-grouping", marketing(buttons=_buttons(QR, URL, QR)), "buttons", "BUTTONS_NOT_GROUPED"),
    # auth
    ("auth-on-marketing", marketing(auth={"otp_type": "COPY_CODE"}), "auth", "NOT_ALLOWED_FOR_CATEGORY"),
    ("auth-header", {**authentication(), "header": {"format": "TEXT", "text": "Hi"}}, "header",
     "NOT_ALLOWED_FOR_CATEGORY"),
    ("auth-body", {**authentication(), "body": {"text": "Your code"}}, "body", "NOT_ALLOWED_FOR_CATEGORY"),
    ("auth-buttons", {**authentication(), "buttons": [QR]}, "buttons", "NOT_ALLOWED_FOR_CATEGORY"),
    ("auth-missing", {**authentication(), "auth": None}, "auth", "REQUIRED"),
    ("otp-type", authentication(otp_type="SMS"), "auth.otp_type", "INVALID_OTP_TYPE"),
    ("otp-type-missing", authentication(otp_type=None), "auth.otp_type", "REQUIRED"),
    ("code-expiration", authentication(code_expiration_minutes=91), "auth.code_expiration_minutes", "OUT_OF_RANGE"),
    ("one-tap-apps", authentication(otp_type="ONE_TAP"), "auth.supported_apps", "REQUIRED"),
    ("copy-code-apps", authentication(supported_apps=[ONE_TAP_APP]), "auth.supported_apps", "NOT_ALLOWED"),
    ("package-name", authentication(otp_type="ONE_TAP", supported_apps=[{**ONE_TAP_APP, "package_name": "app"}]),
     "auth.supported_apps[0].package_name", "INVALID_PACKAGE_NAME"),
    ("signature-hash", authentication(otp_type="ONE_TAP", supported_apps=[{**ONE_TAP_APP, "signature_hash": "x"}]),
     "auth.supported_apps[0].signature_hash", "INVALID_SIGNATURE_HASH"),
    ("zero-tap-terms", authentication(otp_type="ZERO_TAP", supported_apps=[ONE_TAP_APP]),
     "auth.zero_tap_terms_accepted", "TERMS_NOT_ACCEPTED"),
]


@pytest.mark.parametrize("body,path,code", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_each_rule_is_refused_with_its_path(api, brand, writer, body, path, code):
    if body.get("auth") is None:
        body.pop("auth", None)
    resp = await api.post("/v2.0/templates", writer, json=body)
    err = assert_error(resp, 422, "TEMPLATE_VALIDATION_FAILED", marker="error")
    assert [(d["path"], d["code"]) for d in err["details"]] == [(path, code)], err["details"]
    assert all(d["message"] for d in err["details"])


async def test_the_valid_bases_pass(api, client, brand, writer):
    """The bases of the cases above are valid, so each case's single failure is its own."""
    assert (await api.post("/v2.0/templates", writer, json=marketing())).status == 201
    assert (await api.post("/v2.0/templates", writer, json=authentication())).status == 201
    # The per-minute cap is 2: the third base goes through a second organisation.
    other = await make_tenant(client)
    await connect_brand(other)
    zero_tap = authentication(otp_type="ZERO_TAP", supported_apps=[ONE_TAP_APP], zero_tap_terms_accepted=True)
    resp = await api.post("/v2.0/templates", other.legacy_key, json=zero_tap)
    assert resp.status == 201, resp.body


async def test_all_failures_are_reported_together(api, brand, writer):
    body = marketing(name="Bad Name", header={"format": "TEXT", "text": "x" * 61}, footer={"text": "{{1}}"},
                     buttons=[QR, URL, QR, {"type": "PHONE_NUMBER", "text": "Call"}])
    resp = await api.post("/v2.0/templates", writer, json=body)
    err = assert_error(resp, 422, "TEMPLATE_VALIDATION_FAILED", marker="error")
    assert {(d["path"], d["code"]) for d in err["details"]} == {
        ("name", "INVALID_NAME"), ("header.text", "TOO_LONG"), ("footer.text", "VARIABLES_NOT_ALLOWED"),
        ("buttons[3].phone_number", "REQUIRED"), ("buttons", "BUTTONS_NOT_GROUPED"),
    }


async def test_a_second_template_of_one_name_and_language_is_refused(api, brand, writer):
    assert (await api.post("/v2.0/templates", writer, json=marketing())).status == 201
    resp = await api.post("/v2.0/templates", writer, json=marketing())
    err = assert_error(resp, 422, "TEMPLATE_VALIDATION_FAILED", marker="error")
    assert [(d["path"], d["code"]) for d in err["details"]] == [("name", "DUPLICATE_TEMPLATE")]
    other_language = await api.post("/v2.0/templates", writer, json=marketing(language="pt_BR"))
    assert other_language.status == 201, other_language.body


async def test_wrong_json_types_are_a_validation_error(api, brand, writer):
    resp = await api.post("/v2.0/templates", writer, json=marketing(buttons="none"))
    err = assert_error(resp, 400, "VALIDATION_ERROR", marker="error")
    assert err["details"][0]["path"].startswith("buttons")
