"""POST /v2.0/contacts: create or update a contact by its normalised phone number."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import phonenumbers
from pymongo.errors import DuplicateKeyError

from leadline.models.base import utcnow
from leadline.models.contacts import Contact
from leadline.resolvers.billing.limits import limit_of
from leadline.resolvers.context import RequestContext
from leadline.resolvers.contacts import counters, term_counts
from leadline.resolvers.contacts.fields import definitions_by_key
from leadline.resolvers.contacts.tags import existing_tag_ids
from leadline.resolvers.contacts.terms import contact_terms
from leadline.resolvers.contacts.values import coerce_custom_fields
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.events import Event, emit, emit_many
from leadline.resolvers.json_limits import check_json
from leadline.resolvers.leads import contact_values as lead_values
from leadline.resolvers.phones import country_code_digits, is_bsuid, normalize_phone

TEXT_FIELDS = ("contactName", "email", "platform", "businessName", "addressLine1", "addressLine2", "city",
               "state", "postalCode", "country", "source", "notes", "lead_category")
FLAG_FIELDS = ("optedOut", "chatapp_undeliverable", "auto_added")
MAX_TEXT, MAX_NOTES = 500, 5000
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@dataclass
class ContactWrite:
    """The writable fields as sent; None means "not sent" (an empty string clears a text field)."""

    phone: str | None = None
    bsuid: str | None = None
    countryCode: str | None = None
    defaultCountryCode: str | None = None
    text: dict[str, str | None] = field(default_factory=dict)
    flags: dict[str, bool | None] = field(default_factory=dict)
    lead_segments: Any = None
    customFields: Any = None
    tags: list[str] | None = None


@dataclass(frozen=True)
class UpsertResult:
    contact: Contact
    is_new: bool


def _text_changes(write: ContactWrite) -> dict[str, str | None]:
    changes, problems = {}, []
    for name, value in write.text.items():
        if value is None:
            continue
        value = value.strip()
        if len(value) > (MAX_NOTES if name == "notes" else MAX_TEXT):
            problems.append(detail(name, "TOO_LONG", f"{name} is too long"))
        elif name == "email" and value and not _EMAIL.match(value):
            problems.append(detail(name, "INVALID_VALUE", "email is not an e-mail address"))
        changes[name] = value or None
    if problems:
        raise validation_error(problems)
    return changes


def _object(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise validation_error([detail(path, "INVALID_TYPE", f"{path} must be a JSON object")])
    return value


def _merge(current: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """Key-wise merge; a null value removes the key."""
    merged = {**current, **changes}
    return {k: v for k, v in merged.items() if v is not None}


async def upsert_contact(ctx: RequestContext, write: ContactWrite) -> UpsertResult:
    if not write.phone or not str(write.phone).strip():
        raise ApiError("MISSING_PHONE", "phone is required.")
    if write.customFields is not None and not isinstance(write.customFields, dict):
        raise ApiError("INVALID_CUSTOM_FIELDS", "customFields must be a plain JSON object keyed by fieldKey.")
    # The free-form limits (the JSON scalar applies them too; jobs and direct callers come through here).
    check_json(write.customFields, "customFields")
    check_json(write.lead_segments, "lead_segments")
    code = country_code_digits(write.countryCode)
    phone = normalize_phone(write.phone, code or country_code_digits(write.defaultCountryCode))
    if write.bsuid is not None and not is_bsuid(write.bsuid):
        raise validation_error([detail("bsuid", "INVALID_BSUID", "bsuid must be an ISO 3166 alpha-2 country code, "
                                                                 "a dot and 1-128 letters or digits")])
    code = code or str(phonenumbers.parse("+" + phone).country_code)
    changes: dict[str, Any] = {**_text_changes(write), **{k: v for k, v in write.flags.items() if v is not None}}
    if write.countryCode is not None:
        changes["countryCode"] = code
    if write.bsuid is not None:
        changes["bsuid"] = write.bsuid
    custom = None
    if write.customFields is not None:
        custom = coerce_custom_fields(write.customFields, await definitions_by_key(ctx), code)
    segments = _object(write.lead_segments, "lead_segments") if write.lead_segments is not None else None
    if "lead_category" in changes or segments is not None:
        # Checked against the organisation's lead segmentation: a known category, values fitting their insight.
        changes, segments = await lead_values.check(ctx, changes, segments)
    if write.tags is not None:
        changes["tags"] = await existing_tag_ids(ctx, write.tags)
    if write.bsuid is not None:
        await _refuse_bsuid_of_another(ctx, write.bsuid, phone)

    for _ in range(5):
        existing = await Contact.find_one_in(ctx, {"phone": phone})
        if existing is None:
            created = await insert_new_contact(ctx, phone, code, changes, custom, segments)
            if created is not None:
                await lead_values.lock(ctx, created, changes, segments)
                return UpsertResult(created, True)
        elif (updated := await update_contact(existing, changes, custom, segments, ctx=ctx)) is not None:
            await lead_values.lock(ctx, updated, changes, segments)
            return UpsertResult(updated, False)
    raise ApiError("INTERNAL_SERVER_ERROR", "The contact changed concurrently too often; try again.")


async def _refuse_bsuid_of_another(ctx: RequestContext, bsuid: str, phone: str) -> None:
    other = await Contact.find_one_in(ctx, {"bsuid": bsuid})
    if other is not None and other.phone != phone:
        raise ApiError("CONTACT_ALREADY_EXISTS", f"bsuid {bsuid} already belongs to the contact with phone "
                                                 f"{other.phone}.")


async def insert_new_contact(ctx: RequestContext, phone: str, code: str | None, changes: dict[str, Any],
                             custom: dict[str, Any] | None, segments: dict[str, Any] | None) -> Contact | None:
    """Insert; None when another request created the same phone first (the caller then updates it).
    Raises LIMIT_EXCEEDED at the plan's max_contacts."""
    seq = await counters.reserve_slot(ctx.org_id, limit_of(ctx, "max_contacts"))
    try:
        contact = _new_contact(ctx, phone, seq, code, changes, custom, segments)
        await contact.insert()
    except DuplicateKeyError:
        await counters.release_slot(ctx.org_id)
        return None
    except BaseException:
        # Whatever refused the write, the slot is given back: a kept slot would count a contact that
        # does not exist (the list would report a total with no row to show).
        await counters.release_slot(ctx.org_id)
        raise
    await term_counts.apply(ctx.org_id, contact.terms)
    await emit(ctx, "contact.created", _created_payload(contact))
    return contact


async def insert_new_contacts(ctx: RequestContext, new: list[tuple[str, str | None, dict[str, Any]]]) -> list[Contact]:
    """Many at once (phones unique in `new`): one slot reservation, one insert, one term-count write and
    one event write. Returns the contacts stored; a phone created concurrently elsewhere is left out
    (the caller reads it), and so are phones past the plan's max_contacts (logged by the caller)."""
    seqs = await counters.reserve_slots(ctx.org_id, len(new), limit_of(ctx, "max_contacts"))
    try:
        contacts = [_new_contact(ctx, phone, seq, code, changes, None, None)
                    for (phone, code, changes), seq in zip(new, seqs)]
        duplicates = await Contact.insert_many_in(ctx, contacts)
    except BaseException:
        await counters.release_slot(ctx.org_id, len(seqs))
        raise
    if duplicates:
        await counters.release_slot(ctx.org_id, len(duplicates))
    stored = [c for i, c in enumerate(contacts) if i not in duplicates]
    if stored:
        await term_counts.apply(ctx.org_id, [t for c in stored for t in c.terms])
        await emit_many(ctx, [Event(ctx.org_id, "contact.created", _created_payload(c)) for c in stored])
    return stored


def _new_contact(ctx: RequestContext, phone: str, seq: int, code: str | None, changes: dict[str, Any],
                 custom: dict[str, Any] | None, segments: dict[str, Any] | None) -> Contact:
    contact = Contact.new(ctx, phone=phone, seq=seq, **{"countryCode": code, **changes},
                          customFields=_merge({}, custom or {}), lead_segments=_merge({}, segments or {}))
    contact.terms = contact_terms(ctx.org_id, contact.model_dump())
    return contact


def _created_payload(contact: Contact) -> dict[str, Any]:
    return {"contactId": str(contact.id), "phone": contact.phone, "bsuid": contact.bsuid,
            "contactName": contact.contactName, "countryCode": contact.countryCode, "source": contact.source,
            "auto_added": contact.auto_added, "createdAt": contact.created_at.isoformat()}


async def update_contact(existing: Contact, changes: dict[str, Any], custom: dict[str, Any] | None,
                         segments: dict[str, Any] | None, *, ctx: RequestContext | None = None,
                         source: str = "api") -> Contact | None:
    """Conditional on the version read, so `terms` always matches the values (and the term counts
    move by exactly the difference); None when the contact moved on. With `ctx`, a change records
    `contact.updated` with the fields that changed and what changed them (`source`)."""
    updated = existing.model_copy(deep=True)
    for name, value in changes.items():
        setattr(updated, name, value)
    if custom is not None:
        updated.customFields = _merge(existing.customFields, custom)
    if segments is not None:
        updated.lead_segments = _merge(existing.lead_segments, segments)
    updated.terms = contact_terms(existing.org_id, updated.model_dump())
    updated.updated_at = utcnow()
    fields = {*changes, "terms", "updated_at", *(("customFields",) if custom is not None else ()),
              *(("lead_segments",) if segments is not None else ())}
    result = await Contact.update_one_in(
        existing, {"_id": existing.id, "version": existing.version},
        {"$set": {name: getattr(updated, name) for name in fields}, "$inc": {"version": 1}})
    if result.matched_count == 0:
        return None
    await term_counts.apply_diff(existing.org_id, existing.terms, updated.terms)
    updated.version += 1
    changed = sorted(name for name in fields - {"terms", "updated_at"}
                     if getattr(updated, name) != getattr(existing, name))
    if ctx is not None and changed:
        await emit(ctx, "contact.updated", {
            "contactId": str(updated.id), "phone": updated.phone, "bsuid": updated.bsuid, "changed": changed,
            "optedOut": updated.optedOut, "source": source, "updatedAt": updated.updated_at.isoformat()})
    return updated
