"""The rules of a chat interactive message (`message_templates` tools and their chat extra messages).

`components` is the provider's interactive payload, sent as given: `{type, header?, body:{text},
footer?, action}`. The spec's limits come first; where it is silent, the WhatsApp Cloud API's own
rules for the same payload apply (docs/tools.md lists them).
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from leadline.resolvers.tools.fields import Report, each_object, join

TEMPLATE_TYPES = ("button", "list", "cta_url", "product", "product_list", "catalog_message", "flow", "carousel")
HEADER_TYPES = ("text", "image", "video", "document")
MEDIA_HEADERS = ("image", "video", "document")
BODY_MAX, HEADER_MAX, FOOTER_MAX = 1024, 60, 60
BUTTONS_MAX, BUTTON_TITLE_MAX, BUTTON_ID_MAX = 3, 20, 256
LIST_BUTTON_MAX, SECTIONS_MAX, ROWS_MAX = 20, 10, 10
ROW_TITLE_MAX, ROW_DESCRIPTION_MAX, ROW_ID_MAX, SECTION_TITLE_MAX = 24, 72, 200, 24
CTA_TEXT_MAX = 20
PRODUCTS_MAX = 30
CARDS_MIN, CARDS_MAX = 2, 10

EXAMPLE_BUTTONS = {"buttons": [{"type": "reply", "reply": {"id": "yes", "title": "Yes"}},
                               {"type": "reply", "reply": {"id": "no", "title": "No"}}]}


def valid_url(value: Any) -> bool:
    if not isinstance(value, str) or len(value) > 2000:
        return False
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _text(report: Report, obj: Any, key: str, path: str, maximum: int, *, required: bool) -> None:
    value = obj.get(key) if isinstance(obj, dict) else None
    where = join(path, key)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            report.add(where, "REQUIRED", f"{where} is required")
        return
    if not isinstance(value, str):
        report.add(where, "INVALID_TYPE", f"{where} must be a string")
    elif len(value) > maximum:
        report.add(where, "TOO_LONG", f"{where} is at most {maximum} characters")


def _object(report: Report, value: Any, path: str, *, required: bool) -> dict | None:
    if value is None:
        if required:
            report.add(path, "REQUIRED", f"{path} is required")
        return None
    if not isinstance(value, dict):
        report.add(path, "INVALID_TYPE", f"{path} must be an object")
        return None
    return value


def _list(report: Report, value: Any, path: str, low: int, high: int, what: str) -> list:
    if value is None:
        report.add(path, "REQUIRED", f"{path} is required ({low} to {high} {what})")
        return []
    if not isinstance(value, list):
        report.add(path, "INVALID_TYPE", f"{path} must be an array")
        return []
    if len(value) < low:
        report.add(path, "TOO_FEW", f"{path} needs at least {low} {what}")
    elif len(value) > high:
        report.add(path, "TOO_MANY", f"{path} holds at most {high} {what}")
    return value


def check_components(report: Report, template_type: str | None, components: Any, path: str,
                     media_id: str | None) -> None:
    """Every rule of one interactive payload; `template_type` is the tool's (or the extra message's)."""
    comp = _object(report, components, path, required=True)
    if comp is None:
        return
    ctype = comp.get("type")
    if ctype is None:
        report.add(join(path, "type"), "COMPONENTS_TYPE_REQUIRED",
                   f"{path}.type is required and must equal templateType ('{template_type}')")
    elif ctype != template_type:
        report.add(join(path, "type"), "COMPONENTS_TYPE_MISMATCH",
                   f"{path}.type ('{ctype}') must equal templateType ('{template_type}')")
    _header(report, comp.get("header"), join(path, "header"), media_id, required=template_type == "product_list")
    body = _object(report, comp.get("body"), join(path, "body"), required=True)
    if body is not None:
        _text(report, body, "text", join(path, "body"), BODY_MAX, required=True)
    footer = _object(report, comp.get("footer"), join(path, "footer"), required=False)
    if footer is not None:
        _text(report, footer, "text", join(path, "footer"), FOOTER_MAX, required=True)
    action = _object(report, comp.get("action"), join(path, "action"), required=True)
    if action is not None and template_type in _ACTIONS:
        _ACTIONS[template_type](report, action, join(path, "action"))


def header_type_of(components: Any) -> str | None:
    """`text` or `media` from the payload's header (headerType derived when omitted)."""
    header = components.get("header") if isinstance(components, dict) else None
    kind = header.get("type") if isinstance(header, dict) else None
    if kind == "text":
        return "text"
    if kind in MEDIA_HEADERS:
        return "media"
    return None


def _header(report: Report, value: Any, path: str, media_id: str | None, *, required: bool) -> None:
    header = _object(report, value, path, required=required)
    if header is None:
        return
    kind = header.get("type")
    if kind not in HEADER_TYPES:
        report.add(join(path, "type"), "INVALID_VALUE", f"{path}.type must be one of: {', '.join(HEADER_TYPES)}")
        return
    if kind == "text":
        _text(report, header, "text", path, HEADER_MAX, required=True)
        return
    media = header.get(kind)
    has_media = isinstance(media, dict) and (media.get("link") or media.get("id"))
    if isinstance(media, dict) and media.get("link") and not valid_url(media["link"]):
        report.add(join(join(path, kind), "link"), "INVALID_URL", f"{path}.{kind}.link must be an http(s) URL")
    if not has_media and not media_id:
        report.add(join(path, kind), "MEDIA_REQUIRED",
                   f"a {kind} header needs {path}.{kind}.link or .id, or the tool's mediaId")


def _buttons(report: Report, action: dict, path: str) -> None:
    buttons = _list(report, action.get("buttons"), join(path, "buttons"), 1, BUTTONS_MAX, "buttons")
    titles: set[str] = set()
    ids: set[str] = set()
    for where, button in each_object(report, buttons, join(path, "buttons"), BUTTONS_MAX):
        reply = _object(report, button.get("reply"), join(where, "reply"), required=True)
        if reply is None:
            continue
        _text(report, reply, "id", join(where, "reply"), BUTTON_ID_MAX, required=True)
        _text(report, reply, "title", join(where, "reply"), BUTTON_TITLE_MAX, required=True)
        title, rid = reply.get("title"), reply.get("id")
        if isinstance(title, str) and title.strip():
            if title.strip().lower() in titles:
                report.add(join(join(where, "reply"), "title"), "DUPLICATE", f"button titles must be unique ('{title}')")
            titles.add(title.strip().lower())
        if isinstance(rid, str) and rid:
            if rid in ids:
                report.add(join(join(where, "reply"), "id"), "DUPLICATE", f"button ids must be unique ('{rid}')")
            ids.add(rid)


def _list_message(report: Report, action: dict, path: str) -> None:
    _text(report, action, "button", path, LIST_BUTTON_MAX, required=True)
    sections = _list(report, action.get("sections"), join(path, "sections"), 1, SECTIONS_MAX, "sections")
    rows_total = 0
    ids: set[str] = set()
    for where, section in each_object(report, sections, join(path, "sections"), SECTIONS_MAX):
        _text(report, section, "title", where, SECTION_TITLE_MAX, required=len(sections) > 1)
        rows = _list(report, section.get("rows"), join(where, "rows"), 1, ROWS_MAX, "rows")
        rows_total += len(rows)
        for rwhere, row in each_object(report, rows, join(where, "rows"), ROWS_MAX):
            _text(report, row, "id", rwhere, ROW_ID_MAX, required=True)
            _text(report, row, "title", rwhere, ROW_TITLE_MAX, required=True)
            _text(report, row, "description", rwhere, ROW_DESCRIPTION_MAX, required=False)
            if isinstance(row.get("id"), str) and row["id"]:
                if row["id"] in ids:
                    report.add(join(rwhere, "id"), "DUPLICATE", f"row ids must be unique ('{row['id']}')")
                ids.add(row["id"])
    if rows_total > ROWS_MAX and all(isinstance(s, dict) and len(s.get("rows") or []) <= ROWS_MAX for s in sections):
        report.add(join(path, "sections"), "TOO_MANY", f"a list holds at most {ROWS_MAX} rows in all (got {rows_total})")


def _cta_url(report: Report, action: dict, path: str) -> None:
    if action.get("name") not in (None, "cta_url"):
        report.add(join(path, "name"), "INVALID_VALUE", f"{path}.name must be 'cta_url'")
    params = _object(report, action.get("parameters"), join(path, "parameters"), required=True)
    if params is None:
        return
    _text(report, params, "display_text", join(path, "parameters"), CTA_TEXT_MAX, required=True)
    url_path = join(join(path, "parameters"), "url")
    if params.get("url") is None:
        report.add(url_path, "REQUIRED", f"{url_path} is required")
    elif not valid_url(params["url"]):
        report.add(url_path, "INVALID_URL", f"{url_path} must be an http(s) URL")


def _product(report: Report, action: dict, path: str) -> None:
    _text(report, action, "catalog_id", path, 128, required=True)
    _text(report, action, "product_retailer_id", path, 128, required=True)


def _product_list(report: Report, action: dict, path: str) -> None:
    _text(report, action, "catalog_id", path, 128, required=True)
    sections = _list(report, action.get("sections"), join(path, "sections"), 1, SECTIONS_MAX, "sections")
    total = 0
    for where, section in each_object(report, sections, join(path, "sections"), SECTIONS_MAX):
        _text(report, section, "title", where, SECTION_TITLE_MAX, required=True)
        items = _list(report, section.get("product_items"), join(where, "product_items"), 1, PRODUCTS_MAX, "products")
        total += len(items)
        for j, item in enumerate(items[:PRODUCTS_MAX]):
            _text(report, item if isinstance(item, dict) else {}, "product_retailer_id",
                  join(join(where, "product_items"), j), 128, required=True)
    if total > PRODUCTS_MAX and all(isinstance(s, dict) and len(s.get("product_items") or []) <= PRODUCTS_MAX
                                    for s in sections):
        report.add(join(path, "sections"), "TOO_MANY", f"a product list holds at most {PRODUCTS_MAX} products "
                                                      f"in all (got {total})")


def _catalog_message(report: Report, action: dict, path: str) -> None:
    if action.get("name") not in (None, "catalog_message"):
        report.add(join(path, "name"), "INVALID_VALUE", f"{path}.name must be 'catalog_message'")


def _flow(report: Report, action: dict, path: str) -> None:
    if action.get("name") not in (None, "flow"):
        report.add(join(path, "name"), "INVALID_VALUE", f"{path}.name must be 'flow'")
    params = _object(report, action.get("parameters"), join(path, "parameters"), required=True)
    if params is None:
        return
    _text(report, params, "flow_cta", join(path, "parameters"), CTA_TEXT_MAX, required=True)
    if not params.get("flow_id") and not params.get("flow_name"):
        report.add(join(join(path, "parameters"), "flow_id"), "REQUIRED",
                   f"{path}.parameters needs flow_id or flow_name")


def _carousel(report: Report, action: dict, path: str) -> None:
    cards = _list(report, action.get("cards"), join(path, "cards"), CARDS_MIN, CARDS_MAX, "cards")
    for where, card in each_object(report, cards, join(path, "cards"), CARDS_MAX):
        header = _object(report, card.get("header"), join(where, "header"), required=True)
        if header is not None and header.get("type") not in ("image", "video"):
            report.add(join(join(where, "header"), "type"), "INVALID_VALUE", "a card header is an image or a video")
        body = _object(report, card.get("body"), join(where, "body"), required=False)
        if body is not None:
            _text(report, body, "text", join(where, "body"), 160, required=True)


_ACTIONS = {"button": _buttons, "list": _list_message, "cta_url": _cta_url, "product": _product,
            "product_list": _product_list, "catalog_message": _catalog_message, "flow": _flow, "carousel": _carousel}
