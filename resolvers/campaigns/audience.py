"""A campaign's audience: validated, then resolved as a stream of contacts, each in one bucket.

Segment mode: contacts in any of `segmentIds` (saved filters) or carrying any of `tags`, minus
`excludeSegmentIds` and `excludeTags`, narrowed by `filters`; no segment and no tag means every
contact. The organisation's contacts are read once, in `seq` order over the (org_id, seq) index, a
page at a time, and each is tested in Python against the compiled rules (resolvers/contacts/
matching.py): one indexed scan whatever the number of segments, and never the whole audience in
memory. Contacts mode: the listed phones (normalised, each once), read in pages by phone.

Buckets, in this order: opted out, undeliverable (when `ignoreUndeliverable`), eligible.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, AsyncIterator

from bson import ObjectId

from leadline.models.campaigns import Segment
from leadline.models.contacts import Contact
from leadline.resolvers.contacts import counters
from leadline.resolvers.contacts.filters import build_filter
from leadline.resolvers.contacts.matching import Predicate, matcher
from leadline.resolvers.contacts.terms import term
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail
from leadline.resolvers.phones import try_normalize_phone

PAGE = 2000
MAX_CONTACTS = 100_000
MAX_IDS = 100
SAMPLE = 10
FIELDS = {"_id": 1, "phone": 1, "contactName": 1, "email": 1, "city": 1, "state": 1, "country": 1,
          "customFields": 1, "terms": 1, "optedOut": 1, "chatapp_undeliverable": 1, "source": 1, "seq": 1}


@dataclass
class Audience:
    mode: str  # "segments" | "contacts"
    segments: list[Segment] = field(default_factory=list)
    excluded_segments: list[Segment] = field(default_factory=list)
    tags: list[ObjectId] = field(default_factory=list)
    excluded_tags: list[ObjectId] = field(default_factory=list)
    source: str | None = None
    has_email: bool | None = None
    opted_out: bool | None = None
    advanced: dict[str, Any] | None = None
    ignore_undeliverable: bool = True
    # Contacts mode: phone -> {name, email, custom, variables}, in the order given.
    listed: dict[str, dict[str, Any]] = field(default_factory=dict)

    def stored(self) -> dict[str, Any]:
        """What the campaign keeps of it (contacts mode keeps only the count)."""
        if self.mode == "contacts":
            return {"mode": "contacts", "contacts": len(self.listed), "ignoreUndeliverable": self.ignore_undeliverable}
        return {"mode": "segments", "segmentIds": [str(s.id) for s in self.segments],
                "excludeSegmentIds": [str(s.id) for s in self.excluded_segments],
                "tags": [str(t) for t in self.tags], "excludeTags": [str(t) for t in self.excluded_tags],
                "filters": {"source": self.source, "hasEmail": self.has_email, "optedOut": self.opted_out,
                            "advancedFilters": self.advanced},
                "ignoreUndeliverable": self.ignore_undeliverable}


@dataclass(frozen=True)
class Member:
    """One resolved contact (contacts mode: `contact` may be None for a phone not yet a contact)."""

    phone: str
    bucket: str  # "eligible" | "optedOut" | "undeliverable"
    contact: dict[str, Any] | None
    name: str | None
    email: str | None
    listed: dict[str, Any] | None = None  # the contacts-mode entry


def _invalid(problems: list[dict]) -> ApiError:
    return ApiError("CAMPAIGN_AUDIENCE_INVALID", problems[0]["message"], details=problems)


def _ids(values: list[str] | None, path: str, problems: list[dict]) -> list[ObjectId]:
    found = []
    for i, value in enumerate(values or []):
        if not isinstance(value, str) or not ObjectId.is_valid(value) or len(value) != 24:
            problems.append(detail(f"{path}[{i}]", "INVALID_ID", f"{path}[{i}] must be a 24-character hexadecimal id"))
        else:
            found.append(ObjectId(value))
    if len(found) > MAX_IDS:
        problems.append(detail(path, "TOO_LONG", f"{path} holds at most {MAX_IDS} ids"))
    return list(dict.fromkeys(found))


async def _segments(ctx: RequestContext, ids: list[ObjectId], path: str, problems: list[dict]) -> list[Segment]:
    if not ids:
        return []
    found = {s.id: s for s in await Segment.get_many_in(ctx, ids)}
    for i, segment_id in enumerate(ids):
        segment = found.get(segment_id)
        if segment is None:
            problems.append(detail(f"{path}[{i}]", "UNKNOWN_SEGMENT", f"no segment {segment_id} in this organisation"))
        elif not segment.is_active:
            problems.append(detail(f"{path}[{i}]", "INACTIVE_SEGMENT", f"segment {segment.name} is not active"))
    return [found[i] for i in ids if i in found and found[i].is_active]


def _listed(entries: list[dict[str, Any]], problems: list[dict]) -> dict[str, dict[str, Any]]:
    listed: dict[str, dict[str, Any]] = {}
    if len(entries) > MAX_CONTACTS:
        problems.append(detail("audience.contacts", "TOO_LONG", f"at most {MAX_CONTACTS} contacts"))
        return listed
    for i, entry in enumerate(entries):
        phone = try_normalize_phone(entry.get("phone")) if entry.get("phone") else None
        if phone is None:
            problems.append(detail(f"audience.contacts[{i}].phone", "INVALID_PHONE_NUMBER",
                                   "a phone number in full international digits is required"))
            continue
        for key in ("custom", "variables"):
            if entry.get(key) is not None and not isinstance(entry[key], dict):
                problems.append(detail(f"audience.contacts[{i}].{key}", "INVALID_TYPE", f"{key} must be an object"))
        listed.setdefault(phone, entry)  # duplicates count once: the first entry wins
    return listed


async def parse(ctx: RequestContext, raw: dict[str, Any] | None) -> Audience:
    """CAMPAIGN_AUDIENCE_INVALID (every problem in `details`) unless the audience is usable."""
    if raw is None:
        raise _invalid([detail("audience", "REQUIRED", "audience is required")])
    problems: list[dict] = []
    filters = raw.get("filters") or {}
    segment_fields = [k for k in ("segmentIds", "excludeSegmentIds", "tags", "excludeTags") if raw.get(k)]
    if filters and any(v is not None for v in filters.values()):
        segment_fields.append("filters")
    ignore = raw.get("ignoreUndeliverable")
    ignore = (True if ignore is None else bool(ignore)) and filters.get("ignoreUndeliverableContacts") is not False
    if raw.get("contacts") is not None:
        if segment_fields:
            raise _invalid([detail("audience.contacts", "MIXED_MODES",
                                   f"contacts cannot be combined with {', '.join(segment_fields)}")])
        listed = _listed(raw["contacts"], problems)
        if problems:
            raise _invalid(problems)
        return Audience("contacts", listed=listed, ignore_undeliverable=ignore)
    audience = Audience("segments", ignore_undeliverable=ignore, source=filters.get("source"),
                        has_email=filters.get("hasEmail"), opted_out=filters.get("optedOut"))
    include = _ids(raw.get("segmentIds"), "audience.segmentIds", problems)
    exclude = _ids(raw.get("excludeSegmentIds"), "audience.excludeSegmentIds", problems)
    audience.tags = _ids(raw.get("tags"), "audience.tags", problems)
    audience.excluded_tags = _ids(raw.get("excludeTags"), "audience.excludeTags", problems)
    audience.segments = await _segments(ctx, include, "audience.segmentIds", problems)
    audience.excluded_segments = await _segments(ctx, exclude, "audience.excludeSegmentIds", problems)
    advanced = filters.get("advancedFilters")
    if advanced is not None:
        if not isinstance(advanced, dict):
            problems.append(detail("audience.filters.advancedFilters", "INVALID_TYPE", "advancedFilters must be an object"))
        else:
            try:
                build_filter(ctx.org_id, advanced)
                audience.advanced = advanced
            except ApiError as err:
                for d in err.details or [detail("audience.filters.advancedFilters", err.code, err.message)]:
                    problems.append(detail(f"audience.filters.advancedFilters.{d['path'].removeprefix('filter.')}",
                                           d["code"], d["message"]))
    if problems:
        raise _invalid(problems)
    return audience


def _rules(ctx: RequestContext, audience: Audience) -> Predicate:
    org = ctx.org_id
    include = [matcher(build_filter(org, s.filter)) for s in audience.segments]
    exclude = [matcher(build_filter(org, s.filter)) for s in audience.excluded_segments]
    tag_terms = {term(org, "tags", t) for t in audience.tags}
    excluded_terms = {term(org, "tags", t) for t in audience.excluded_tags}
    advanced = matcher(build_filter(org, audience.advanced)) if audience.advanced else None
    everyone = not include and not tag_terms

    def member(doc: dict[str, Any]) -> bool:
        terms = set(doc.get("terms") or ())
        if not everyone and not (any(m(doc) for m in include) or not tag_terms.isdisjoint(terms)):
            return False
        if not excluded_terms.isdisjoint(terms) or any(m(doc) for m in exclude):
            return False
        if audience.source is not None and doc.get("source") != audience.source:
            return False
        if audience.has_email is not None and bool(doc.get("email")) != audience.has_email:
            return False
        if audience.opted_out is not None and bool(doc.get("optedOut")) != audience.opted_out:
            return False
        return advanced is None or advanced(doc)

    return member


def _bucket(audience: Audience, doc: dict[str, Any] | None) -> str:
    if doc is not None and doc.get("optedOut"):
        return "optedOut"
    if audience.ignore_undeliverable and doc is not None and doc.get("chatapp_undeliverable"):
        return "undeliverable"
    return "eligible"


async def members(ctx: RequestContext, audience: Audience) -> AsyncIterator[Member]:
    """Every matched contact once, with its bucket, a page at a time."""
    if audience.mode == "contacts":
        phones = list(audience.listed)
        for start in range(0, len(phones), PAGE):
            page = phones[start:start + PAGE]
            known = {doc["phone"]: doc for doc in await Contact.find_raw_in_each(ctx, "phone", page, projection=FIELDS)}
            for phone in page:
                entry, doc = audience.listed[phone], known.get(phone)
                name = entry.get("name") or (doc or {}).get("contactName")
                email = entry.get("email") or (doc or {}).get("email")
                yield Member(phone, _bucket(audience, doc), doc, name, email, entry)
        return
    member = _rules(ctx, audience)
    _, last_seq = await counters.snapshot(ctx.org_id)  # contacts created from here on are not in it
    for low in range(0, last_seq, PAGE):
        page = await Contact.find_raw_in(ctx, {"seq": {"$gt": low, "$lte": low + PAGE}}, FIELDS)
        for doc in sorted(page, key=lambda d: d["seq"]):
            if member(doc):
                yield Member(doc["phone"], _bucket(audience, doc), doc, doc.get("contactName"), doc.get("email"))


@dataclass
class Tally:
    total: int = 0
    eligible: int = 0
    opted_out: int = 0
    undeliverable: int = 0
    sample: list[Member] = field(default_factory=list)

    def add(self, m: Member) -> None:
        self.total += 1
        if m.bucket == "optedOut":
            self.opted_out += 1
        elif m.bucket == "undeliverable":
            self.undeliverable += 1
        else:
            self.eligible += 1
        if len(self.sample) < SAMPLE:
            self.sample.append(m)


async def preview(ctx: RequestContext, audience: Audience) -> Tally:
    tally = Tally()
    async for m in members(ctx, audience):
        tally.add(m)
    return tally
