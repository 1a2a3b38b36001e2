"""Validating a whole tool payload (a create, or a patch merged over the stored tool): every problem at
once, as 422 TOOL_VALIDATION_FAILED `details[{path, code, message, example?}]`.

Before the rules: a free-form field holding the wrong JSON type (`parameters: "x"`) is the usual
400 VALIDATION_ERROR, as typed fields are; more than two extra messages is 422 EXTRA_MESSAGES_MAX.
"""
from __future__ import annotations

import re
from typing import Any

from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.tools import pagemessages, rules
from leadline.resolvers.tools.definitions import (CHAT_EXTRA_ITEM, COMMON_FIELDS, COMMON_NAMES, EXTRA_MESSAGES_MAX,
                                                  HEX_ID, TYPES)
from leadline.resolvers.tools.fields import MISSING, Report, check, with_defaults
from leadline.resolvers.tools.interactive import TEMPLATE_TYPES, header_type_of

HEX = re.compile(HEX_ID)
# Free-form (JSON) fields that must be objects.
OBJECT_FIELDS = ("parameters", "components", "photoappComponents", "pageappComponents")


def check_json_types(payload: dict[str, Any]) -> None:
    problems = [detail(name, "INVALID_TYPE", f"{name} must be an object")
                for name in OBJECT_FIELDS if payload.get(name) is not None and not isinstance(payload[name], dict)]
    for i, item in enumerate(payload.get("extraMessages") or []):
        comp = item.get("components") if isinstance(item, dict) else None
        if comp is not None and not isinstance(comp, dict):
            problems.append(detail(f"extraMessages[{i}].components", "INVALID_TYPE",
                                   f"extraMessages[{i}].components must be an object"))
    if problems:
        raise validation_error(problems)


def validate(payload: dict[str, Any], known_tags: set[str]) -> None:
    """Raises the refusal for `payload`, or returns when it is a valid tool. `known_tags`: the ids of
    the organisation's tool tags among those the payload names."""
    check_json_types(payload)
    extra = payload.get("extraMessages") or []
    if len(extra) > EXTRA_MESSAGES_MAX:
        raise ApiError("EXTRA_MESSAGES_MAX", f"A tool sends at most {EXTRA_MESSAGES_MAX} extra messages "
                                             f"(got {len(extra)}).",
                       details=[detail("extraMessages", "EXTRA_MESSAGES_MAX",
                                       f"extraMessages holds at most {EXTRA_MESSAGES_MAX} items")])
    report = Report()
    for fd in COMMON_FIELDS:
        check(fd, payload.get(fd.name, MISSING), fd.name, report)
    tags = payload.get("tags")
    for i, tag in enumerate(tags if isinstance(tags, list) else []):
        if isinstance(tag, str) and HEX.fullmatch(tag) and tag.lower() not in known_tags:
            report.add(f"tags[{i}]", "TOOL_TAG_NOT_FOUND", f"tags[{i}]: no tool tag {tag} in this organisation")
    tdef = TYPES.get(payload.get("toolType"))
    if tdef is not None:
        for key in payload:
            if key not in COMMON_NAMES and key not in tdef.field_names:
                report.add(key, "FIELD_NOT_FOR_TYPE", f"{key} is not a field of {tdef.name} tools")
        for fd in tdef.fields:
            check(fd, payload.get(fd.name, MISSING), fd.name, report)
        for rule in tdef.rules:
            rule(payload, report)
        _extra_messages(tdef.extra, extra, report)
    if report.details:
        raise ApiError("TOOL_VALIDATION_FAILED", _summary(report.details), details=report.details)


def _summary(details: list[dict[str, Any]]) -> str:
    first = details[0]["message"]
    more = f" (and {len(details) - 1} more problem{'s' if len(details) > 2 else ''})" if len(details) > 1 else ""
    return f"The tool is not valid: {first}{more}."


def _extra_messages(kind: str | None, items: list[Any], report: Report) -> None:
    if not items:
        return
    if kind is None:
        report.add("extraMessages", "NOT_ALLOWED_FOR_TYPE", "extraMessages are only for message_templates, "
                                                            "photoapp_templates and pageapp_templates tools")
        return
    for i, item in enumerate(items):
        path = f"extraMessages[{i}]"
        item_report = report.with_prefix(f"Message {i + 2}: ")
        if not isinstance(item, dict):
            item_report.add(path, "INVALID_TYPE", f"{path} must be an object")
            continue
        if kind == "chat":
            for fd in CHAT_EXTRA_ITEM.fields:
                if fd.name != "components":
                    check(fd, item.get(fd.name, MISSING), f"{path}.{fd.name}", item_report)
            template_type = item.get("templateType")
            if template_type in TEMPLATE_TYPES:
                rules.check_chat_message(item_report, template_type, item.get("components"), f"{path}.components",
                                         item.get("mediaId"), item.get("headerType"))
        else:
            for key in item:
                if key != "components":
                    item_report.add(f"{path}.{key}", "FIELD_NOT_FOR_TYPE", f"{key} is not a field of a {kind} "
                                                                           "extra message (only components)")
            pagemessages.check_message(item_report, item.get("components"), f"{path}.components", kind)


def normalise(payload: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A valid payload's type-specific fields with their defaults (`config`) and its extra messages."""
    tdef = TYPES[payload["toolType"]]
    config = {fd.name: with_defaults(fd, payload.get(fd.name, MISSING)) for fd in tdef.fields}
    if tdef.name == "function":
        auth = config["auth"]
        config["auth"] = {"type": auth.get("type") or "none",
                          **{k: auth[k] for k in rules.AUTH_NEEDS[auth.get("type") or "none"] if auth.get(k) is not None}}
    if tdef.name == "message_templates":
        # Always the header's kind (a value sent that contradicts it was refused): a patch that replaces
        # `components` cannot leave a stale headerType behind.
        config["headerType"] = header_type_of(config["components"])
    extra = []
    for item in payload.get("extraMessages") or []:
        if tdef.extra == "chat":
            filled = with_defaults(CHAT_EXTRA_ITEM, item)
            filled["headerType"] = header_type_of(filled["components"])
            extra.append(filled)
        else:
            extra.append({"components": item["components"]})
    return config, extra
