"""Consent by keyword: an inbound message that is only an opt-out word (STOP, UNSUBSCRIBE, ...) sets the
contact's `optedOut`, an opt-in word (START, UNSTOP) clears it; template sends to an opted-out contact
are refused (resolvers/messaging/deliver.py), freeform replies inside the window are not.

A message matches when, trimmed of whitespace and trailing punctuation and compared case-insensitively,
it is one of the words. Each organisation may replace both lists (GraphQL `setOptOutKeywords`).
"""
from __future__ import annotations

import string
from dataclasses import dataclass

from leadline.models.contacts import ConsentKeywords, Contact
from leadline.resolvers.auth.cache import invalidate_org
from leadline.resolvers.context import RequestContext
from leadline.resolvers.contacts.upsert import update_contact
from leadline.resolvers.errors import detail, validation_error

DEFAULT_OPT_OUT = ("STOP", "UNSUBSCRIBE", "CANCEL", "END", "QUIT")
DEFAULT_OPT_IN = ("START", "UNSTOP")
MAX_KEYWORDS, MAX_KEYWORD = 20, 32


@dataclass(frozen=True)
class Keywords:
    opt_out: tuple[str, ...]
    opt_in: tuple[str, ...]

    def decision(self, text: str | None) -> bool | None:
        """True: opt out; False: opt in; None: an ordinary message."""
        word = normalise(text or "")
        if not word or len(word) > MAX_KEYWORD:
            return None
        if word in self.opt_out:
            return True
        if word in self.opt_in:
            return False
        return None


def normalise(text: str) -> str:
    return text.strip().rstrip(string.punctuation + " \t\r\n").strip().upper()


async def keywords(ctx: RequestContext) -> Keywords:
    """The organisation's words, from the per-process cache while its token is unchanged."""
    return await ctx.cached(("consent_keywords",), lambda: _stored_keywords(ctx))


async def _stored_keywords(ctx: RequestContext) -> Keywords:
    stored = await ConsentKeywords.find_one_in(ctx)
    if stored is None:
        return Keywords(DEFAULT_OPT_OUT, DEFAULT_OPT_IN)
    return Keywords(tuple(stored.opt_out), tuple(stored.opt_in))


def _clean(values: list[str] | None, path: str, default: tuple[str, ...]) -> list[str]:
    if values is None:
        return list(default)
    words, problems = [], []
    for i, value in enumerate(values):
        word = normalise(value)
        if not word or len(word) > MAX_KEYWORD or "\x00" in word:
            problems.append(detail(f"{path}[{i}]", "INVALID_VALUE", f"a keyword is 1 to {MAX_KEYWORD} characters"))
        elif word not in words:
            words.append(word)
    if len(words) > MAX_KEYWORDS:
        problems.append(detail(path, "TOO_LONG", f"at most {MAX_KEYWORDS} keywords"))
    if problems:
        raise validation_error(problems)
    return words


async def set_keywords(ctx: RequestContext, opt_out: list[str] | None, opt_in: list[str] | None) -> Keywords:
    """Replace the lists (an omitted list is reset to its default); a word may not be in both."""
    out, back = _clean(opt_out, "optOut", DEFAULT_OPT_OUT), _clean(opt_in, "optIn", DEFAULT_OPT_IN)
    both = sorted(set(out) & set(back))
    if both:
        raise validation_error([detail("optIn", "INVALID_VALUE", f"{', '.join(both)} cannot also be an opt-out word")])
    await ConsentKeywords.update_one_in(ctx, {}, {"$set": {"opt_out": out, "opt_in": back}}, upsert=True)
    await invalidate_org(ctx.services.redis, ctx.services.settings.redis_prefix, ctx.org_id)
    return Keywords(tuple(out), tuple(back))


async def apply_keyword(ctx: RequestContext, contact: Contact, opted_out: bool, keyword: str) -> bool:
    """Set or clear `optedOut` (a versioned update recording `contact.updated`); True when it changed."""
    for _ in range(5):
        if contact.optedOut == opted_out:
            return False
        updated = await update_contact(contact, {"optedOut": opted_out}, None, None, ctx=ctx,
                                       source=f"keyword:{normalise(keyword)}")
        if updated is not None:
            return True
        contact = await Contact.get_in(ctx, contact.id)
        if contact is None:
            return False
    return False
