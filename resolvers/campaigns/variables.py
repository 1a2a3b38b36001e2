"""Campaign variables: checked against the template once, then resolved for each recipient.

Shape (spec): `{header: {mediaUrl, text}, body: [v...], buttons: [{index, params: [v...], payload}]}`
where each `v` is a static string or `{field, default?}` read from the recipient (`name`, `email`,
`city`, `state`, `country`, `customFields.<key>`). Contacts mode: an entry's own `variables` block
overrides the top-level one position by position. A recipient lacking a field with no default gets
no message: its outcome is `failed:VARIABLE_MISSING`.
"""
from __future__ import annotations

from typing import Any

from leadline.models.templates import MessageTemplate
from leadline.resolvers.errors import ApiError, detail
from leadline.resolvers.messaging.content import is_http_url
from leadline.resolvers.providers.base import OutboundTemplate

FIELDS = ("name", "email", "city", "state", "country")
MAX_PAYLOAD, MAX_VALUE = 256, 1024
_CONTACT_FIELD = {"name": "contactName", "email": "email", "city": "city", "state": "state", "country": "country"}


def _check_value(value: Any, path: str, problems: list[dict]) -> None:
    if isinstance(value, str):
        if len(value) > MAX_VALUE:
            problems.append(detail(path, "TOO_LONG", f"{path} is at most {MAX_VALUE} characters"))
        return
    if isinstance(value, dict):
        name = value.get("field")
        if not isinstance(name, str) or not (name in FIELDS or (name.startswith("customFields.") and len(name) > 13)):
            problems.append(detail(path, "INVALID_FIELD", f"{path}.field must be one of {', '.join(FIELDS)} or "
                                                          "customFields.<key>"))
        if "default" in value and not isinstance(value["default"], str):
            problems.append(detail(f"{path}.default", "INVALID_TYPE", f"{path}.default must be a string"))
        if set(value) - {"field", "default"}:
            problems.append(detail(path, "UNKNOWN_FIELD", f"{path} takes only field and default"))
        return
    problems.append(detail(path, "INVALID_TYPE", f"{path} must be a string or {{field, default?}}"))


def validate(template: MessageTemplate, variables: dict[str, Any] | None) -> None:
    """CAMPAIGN_VARIABLES_INVALID with every problem in `details` unless the variables fit the template."""
    problems: list[dict] = []
    variables = variables or {}
    if not isinstance(variables, dict):
        raise ApiError("CAMPAIGN_VARIABLES_INVALID", "variables must be an object",
                       details=[detail("variables", "INVALID_TYPE", "variables must be an object")])
    header = variables.get("header") or {}
    if template.requires_media:
        url = header.get("mediaUrl")
        if not url:
            problems.append(detail("variables.header.mediaUrl", "REQUIRED",
                                   f"the template's {template.header_format} header needs header.mediaUrl"))
        elif not isinstance(url, str) or not is_http_url(url):
            problems.append(detail("variables.header.mediaUrl", "INVALID_VALUE", "header.mediaUrl must be an http(s) URL"))
    elif template.header_variable_count:
        if header.get("text") is None:
            problems.append(detail("variables.header.text", "REQUIRED", "the template's header has {{1}}: header.text is required"))
        else:
            _check_value(header["text"], "variables.header.text", problems)
    body = variables.get("body") or []
    if not isinstance(body, list):
        problems.append(detail("variables.body", "INVALID_TYPE", "body must be an array"))
    else:
        if len(body) != template.body_variable_count:
            problems.append(detail("variables.body", "COUNT_MISMATCH",
                                   f"the template body has {template.body_variable_count} variable(s), body has {len(body)}"))
        for i, value in enumerate(body):
            _check_value(value, f"variables.body[{i}]", problems)
    _check_buttons(template, variables.get("buttons") or [], problems)
    if problems:
        raise ApiError("CAMPAIGN_VARIABLES_INVALID", f"The variables do not fit the template: {problems[0]['message']}",
                       details=problems)


def _check_buttons(template: MessageTemplate, buttons: Any, problems: list[dict]) -> None:
    if not isinstance(buttons, list):
        problems.append(detail("variables.buttons", "INVALID_TYPE", "buttons must be an array"))
        return
    declared = template.buttons
    given: set[int] = set()
    for i, item in enumerate(buttons):
        path = f"variables.buttons[{i}]"
        if not isinstance(item, dict):
            problems.append(detail(path, "INVALID_TYPE", f"{path} must be an object"))
            continue
        index = item.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(declared):
            problems.append(detail(f"{path}.index", "INVALID_VALUE",
                                   f"{path}.index must be a button index of the template (0-{len(declared) - 1})"))
            continue
        given.add(index)
        button = declared[index]
        params = item.get("params")
        if index in template.url_button_indexes:
            if not isinstance(params, list) or not params:
                problems.append(detail(f"{path}.params", "REQUIRED", f"button {index} has a URL variable: params is required"))
            else:
                for k, value in enumerate(params):
                    _check_value(value, f"{path}.params[{k}]", problems)
        elif params is not None:
            problems.append(detail(f"{path}.params", "NOT_EXPECTED", f"button {index} has no URL variable: drop params"))
        payload = item.get("payload")
        if payload is not None:
            if not isinstance(payload, str) or len(payload) > MAX_PAYLOAD:
                problems.append(detail(f"{path}.payload", "INVALID_VALUE", f"payload is a string of at most {MAX_PAYLOAD} characters"))
            elif str(button.get("type", "")).upper() != "QUICK_REPLY":
                problems.append(detail(f"{path}.payload", "NOT_EXPECTED", "a payload is returned by quick-reply buttons only"))
    for index in template.url_button_indexes:
        if index not in given:
            problems.append(detail("variables.buttons", "REQUIRED", f"button {index} has a URL variable: give its params"))


def merged(top: dict[str, Any] | None, own: dict[str, Any] | None) -> dict[str, Any]:
    """An entry's own block over the top-level one, position by position."""
    top, own = top or {}, own or {}
    if not own:
        return top
    body = list(top.get("body") or [])
    for i, value in enumerate(own.get("body") or []):
        if value is not None:
            if i < len(body):
                body[i] = value
            else:
                body.append(value)
    buttons = {b.get("index"): dict(b) for b in top.get("buttons") or [] if isinstance(b, dict)}
    for b in own.get("buttons") or []:
        if isinstance(b, dict):
            buttons[b.get("index")] = {**buttons.get(b.get("index"), {}), **b}
    return {"header": {**(top.get("header") or {}), **(own.get("header") or {})}, "body": body,
            "buttons": list(buttons.values())}


class Missing(Exception):
    def __init__(self, field: str) -> None:
        super().__init__(field)
        self.field = field


def _value(value: Any, contact: dict[str, Any] | None, listed: dict[str, Any] | None) -> str:
    if isinstance(value, str):
        return value
    name = value["field"]
    found = None
    if listed:
        if name in FIELDS:
            found = listed.get(name)
        elif name.startswith("customFields."):
            found = (listed.get("custom") or {}).get(name.split(".", 1)[1])
    if found in (None, "") and contact:
        if name in FIELDS:
            found = contact.get(_CONTACT_FIELD[name])
        else:
            found = (contact.get("customFields") or {}).get(name.split(".", 1)[1])
    if isinstance(found, list):
        found = ", ".join(map(str, found))
    if found in (None, ""):
        if "default" in value:
            return value["default"]
        raise Missing(name)
    return str(found)


def resolve(template: MessageTemplate, variables: dict[str, Any], contact: dict[str, Any] | None,
            listed: dict[str, Any] | None) -> dict[str, Any]:
    """The recipient's parameters, or `{"missing": field}`."""
    try:
        header = variables.get("header") or {}
        params: dict[str, Any] = {"header": None, "body": [_value(v, contact, listed) for v in variables.get("body") or []],
                                  "buttons": []}
        if template.requires_media:
            params["header"] = {"mediaUrl": header.get("mediaUrl")}
        elif template.header_variable_count:
            params["header"] = {"text": _value(header.get("text"), contact, listed)}
        for b in variables.get("buttons") or []:
            params["buttons"].append({"index": b["index"], "payload": b.get("payload"),
                                      "params": [_value(v, contact, listed) for v in b.get("params") or []]})
        return params
    except Missing as missing:
        return {"missing": missing.field}


def outbound(template: MessageTemplate, params: dict[str, Any]) -> OutboundTemplate:
    """The Cloud API send components of resolved parameters (quick replies carry their payload)."""
    components: list[dict[str, Any]] = []
    header = params.get("header") or {}
    if template.requires_media:
        kind = template.header_format.lower()
        media: dict[str, Any] = {"link": header.get("mediaUrl")}
        if kind == "document" and template.header_filename:
            media["filename"] = template.header_filename
        components.append({"type": "header", "parameters": [{"type": kind, kind: media}]})
    elif header.get("text") is not None:
        components.append({"type": "header", "parameters": [{"type": "text", "text": header["text"]}]})
    if params.get("body"):
        components.append({"type": "body", "parameters": [{"type": "text", "text": v} for v in params["body"]]})
    for button in sorted(params.get("buttons") or [], key=lambda b: b["index"]):
        if button["index"] in template.url_button_indexes and button["params"]:
            components.append({"type": "button", "sub_type": "url", "index": str(button["index"]),
                               "parameters": [{"type": "text", "text": button["params"][0]}]})
        elif button.get("payload"):
            components.append({"type": "button", "sub_type": "quick_reply", "index": str(button["index"]),
                               "parameters": [{"type": "payload", "payload": button["payload"]}]})
    return OutboundTemplate(name=template.name, language=template.language, components=components)
