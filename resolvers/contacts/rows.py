"""Contacts built from raw rows, one by one: a row an older version wrote badly (it does not validate, or
its free-form values are too deep to serve) is logged and left out, never failing a whole page."""
from __future__ import annotations

import logging
from typing import Any, Iterable

from pydantic import ValidationError

from leadline.models.contacts import Contact
from leadline.resolvers.json_limits import readable

log = logging.getLogger("leadline.resolvers.contacts.queries")
FREE_FORM = ("lead_segments", "customFields")


def contact_from_raw(doc: dict[str, Any]) -> Contact | None:
    """The contact of a stored row, or None (logged) when the row cannot be served."""
    try:
        if not all(readable(doc.get(name)) for name in FREE_FORM):
            raise ValueError("a free-form value is nested too deeply to serve")
        return Contact.model_validate(doc)
    except (ValidationError, ValueError, TypeError, RecursionError) as exc:
        log.error("contact %s of organisation %s skipped: unreadable row (%s)", doc.get("_id"), doc.get("org_id"),
                  type(exc).__name__, extra={"contact_id": str(doc.get("_id")), "reason": str(exc)[:500]})
        return None


def contacts_from_raw(docs: Iterable[dict[str, Any]]) -> list[Contact]:
    """The servable contacts of these rows, in order; unreadable rows are logged and left out."""
    return [contact for doc in docs if (contact := contact_from_raw(doc)) is not None]
