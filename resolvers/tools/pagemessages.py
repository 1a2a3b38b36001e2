"""The rules of a photoapp or pageapp message (`photoappComponents` / `pageappComponents`, and their extra
messages): `{message: {text?, quick_replies?, attachment?}}`, at least one of the three.

Attachments are a button template (at most 3 buttons), a generic template (at most 10 elements, each
with at most 3 buttons) or a media attachment (`image`, `video`, `audio`, `file`) with `payload.url`.
Buttons are `web_url` (needs `url`) or `postback` (needs `payload`).
"""
from __future__ import annotations

from typing import Any

from leadline.resolvers.tools.fields import Report, each_object, join
from leadline.resolvers.tools.interactive import valid_url

TEXT_MAX = {"photoapp": 1000, "pageapp": 2000}
QUICK_REPLIES_MAX, QUICK_TITLE_MAX, PAYLOAD_MAX = 13, 20, 1000
BUTTONS_MAX, BUTTON_TITLE_MAX, TEMPLATE_TEXT_MAX = 3, 20, 640
ELEMENTS_MAX, ELEMENT_TITLE_MAX = 10, 80
MEDIA_TYPES = ("image", "video", "audio", "file")
BUTTON_TYPES = ("web_url", "postback")


def _string(report: Report, obj: dict, key: str, path: str, maximum: int, *, required: bool) -> None:
    value = obj.get(key)
    where = join(path, key)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            report.add(where, "REQUIRED", f"{where} is required")
    elif not isinstance(value, str):
        report.add(where, "INVALID_TYPE", f"{where} must be a string")
    elif len(value) > maximum:
        report.add(where, "TOO_LONG", f"{where} is at most {maximum} characters")


def check_message(report: Report, components: Any, path: str, platform: str) -> None:
    if not isinstance(components, dict):
        report.add(path, "INVALID_TYPE", f"{path} must be an object with a message")
        return
    message = components.get("message")
    mpath = join(path, "message")
    if not isinstance(message, dict):
        report.add(mpath, "REQUIRED" if message is None else "INVALID_TYPE", f"{mpath} must be an object")
        return
    if not any(message.get(k) for k in ("text", "quick_replies", "attachment")):
        report.add(mpath, "MESSAGE_EMPTY", f"{mpath} needs at least one of text, quick_replies, attachment",
                   {"text": "Hello! How can we help?"})
        return
    _string(report, message, "text", mpath, TEXT_MAX[platform], required=False)
    if message.get("quick_replies") is not None:
        _quick_replies(report, message["quick_replies"], join(mpath, "quick_replies"))
    if message.get("attachment") is not None:
        _attachment(report, message["attachment"], join(mpath, "attachment"))


def _quick_replies(report: Report, replies: Any, path: str) -> None:
    if not isinstance(replies, list):
        report.add(path, "INVALID_TYPE", f"{path} must be an array")
        return
    if len(replies) > QUICK_REPLIES_MAX:
        report.add(path, "TOO_MANY", f"{path} holds at most {QUICK_REPLIES_MAX} quick replies")
    for where, reply in each_object(report, replies, path, QUICK_REPLIES_MAX):
        if reply.get("content_type", "text") == "text":
            _string(report, reply, "title", where, QUICK_TITLE_MAX, required=True)
            _string(report, reply, "payload", where, PAYLOAD_MAX, required=True)


def _attachment(report: Report, attachment: Any, path: str) -> None:
    if not isinstance(attachment, dict):
        report.add(path, "INVALID_TYPE", f"{path} must be an object")
        return
    kind = attachment.get("type")
    payload = attachment.get("payload")
    ppath = join(path, "payload")
    if kind not in ("template", *MEDIA_TYPES):
        report.add(join(path, "type"), "INVALID_VALUE", f"{path}.type must be one of: template, {', '.join(MEDIA_TYPES)}")
        return
    if not isinstance(payload, dict):
        report.add(ppath, "REQUIRED", f"{ppath} is required")
        return
    if kind in MEDIA_TYPES:
        if not valid_url(payload.get("url")):
            report.add(join(ppath, "url"), "REQUIRED" if payload.get("url") is None else "INVALID_URL",
                       f"a {kind} attachment needs {ppath}.url (an http(s) URL)")
        return
    template = payload.get("template_type")
    if template == "button":
        _string(report, payload, "text", ppath, TEMPLATE_TEXT_MAX, required=True)
        _buttons(report, payload.get("buttons"), join(ppath, "buttons"), required=True)
    elif template == "generic":
        elements = payload.get("elements")
        epath = join(ppath, "elements")
        if not isinstance(elements, list) or not elements:
            report.add(epath, "REQUIRED", f"{epath} needs 1 to {ELEMENTS_MAX} elements")
            return
        if len(elements) > ELEMENTS_MAX:
            report.add(epath, "TOO_MANY", f"{epath} holds at most {ELEMENTS_MAX} elements")
        for where, element in each_object(report, elements, epath, ELEMENTS_MAX):
            _string(report, element, "title", where, ELEMENT_TITLE_MAX, required=True)
            _string(report, element, "subtitle", where, ELEMENT_TITLE_MAX, required=False)
            if element.get("image_url") is not None and not valid_url(element["image_url"]):
                report.add(join(where, "image_url"), "INVALID_URL", f"{where}.image_url must be an http(s) URL")
            if element.get("buttons") is not None:
                _buttons(report, element["buttons"], join(where, "buttons"), required=False)
    else:
        report.add(join(ppath, "template_type"), "INVALID_VALUE", f"{ppath}.template_type must be button or generic")


def _buttons(report: Report, buttons: Any, path: str, *, required: bool) -> None:
    if not isinstance(buttons, list) or (required and not buttons):
        report.add(path, "REQUIRED", f"{path} needs 1 to {BUTTONS_MAX} buttons")
        return
    if len(buttons) > BUTTONS_MAX:
        report.add(path, "TOO_MANY", f"{path} holds at most {BUTTONS_MAX} buttons")
    for where, button in each_object(report, buttons, path, BUTTONS_MAX):
        kind = button.get("type")
        _string(report, button, "title", where, BUTTON_TITLE_MAX, required=True)
        if kind == "web_url":
            if not valid_url(button.get("url")):
                report.add(join(where, "url"), "REQUIRED" if button.get("url") is None else "INVALID_URL",
                           f"a web_url button needs {where}.url (an http(s) URL)")
        elif kind == "postback":
            _string(report, button, "payload", where, PAYLOAD_MAX, required=True)
        else:
            report.add(join(where, "type"), "INVALID_VALUE", f"{where}.type must be one of: {', '.join(BUTTON_TYPES)}")
