"""Contact filter patterns cannot backtrack catastrophically: the accepted syntax rules it out by
construction (resolvers/contacts/patterns.py), so no organisation's filter can hold the embedded
database (which matches in-process) and with it every other organisation's requests."""
from __future__ import annotations

import itertools
import re
import time

import pytest

from leadline.resolvers.contacts.patterns import unsafe
from tests.helpers import assert_error, make_tenant

# The classic pathological patterns (OWASP ReDoS list and the shapes of the issue).
CLASSIC = ["(a+)+$", "(a|aa)+$", "(a|a)*$", "(a*)*$", "(.*a){12}", "(x+x+)+y", "^(([a-z])+.)+[A-Z]([a-z])+$",
           "(\\w+\\s?)+$", "^(a+)+$", "(a|b|ab)*c", "a*a*a*a*a*b", ".*.*.*=.*", "(.*){1,32000}[bc]",
           "^(\\d+)*$", "([a-zA-Z]+)*$", "(a{1,16}){1,16}$", "^(\\w+\\.?)*@", "(.*?,){11}P"]
HOSTILE = ["a" * 500, "a" * 499 + "!", "a" * 250 + "b" * 250, "x" * 499 + "y", "aaaa " * 100, "1" * 499 + "x",
           "ab" * 250, "=" * 500, "a," * 250]
ATOMS = ["a", ".", "[a-z]", "\\w", "[^!]"]
QUANTIFIERS = ["*", "+", "?", "{0,16}", "{16}", "{2,}"]


def slowest(pattern: str) -> float:
    """The worst search time in this thread's CPU seconds: other processes sharing the cores (a loaded
    CI machine) do not count against the pattern."""
    compiled = re.compile(pattern, re.IGNORECASE)
    worst = 0.0
    for value in HOSTILE:
        started = time.thread_time()
        compiled.search(value)
        worst = max(worst, time.thread_time() - started)
    return worst


@pytest.mark.parametrize("pattern", CLASSIC)
def test_classic_pathological_patterns_are_refused_or_fast(pattern):
    assert unsafe(pattern) is not None or slowest(pattern) < 0.1


def test_every_accepted_shape_of_two_quantifiers_is_fast_on_500_characters():
    """Every pattern of two quantified single-character atoms, with or without a literal between them and
    anchors around them, that the rules accept, searched against hostile 500-character values."""
    checked = 0
    for a, qa, b, qb in itertools.product(ATOMS, QUANTIFIERS, ATOMS, QUANTIFIERS):
        for middle, start, end in itertools.product(("", "x", "!"), ("", "^"), ("", "$", "!")):
            pattern = f"{start}{a}{qa}{middle}{b}{qb}{end}"
            if unsafe(pattern) is None:
                checked += 1
                assert slowest(pattern) < 0.1, pattern
    assert checked > 1000


async def test_a_pathological_filter_is_refused_at_once_and_other_tenants_are_not_held(api, tenant, client):
    key = tenant.legacy_key
    assert (await api.post("/v2.0/contacts", key, json={"phone": "14155552671",
                                                        "contactName": "a" * 40 + "!"})).status == 201
    started = time.perf_counter()
    resp = await api.post("/v2.0/contacts/filter", key, json={"filter": {"contactName": "(a|aa)+$"}})
    assert_error(resp, 400, "VALIDATION_ERROR")
    assert resp.body["details"][0]["code"] == "UNSAFE_PATTERN"
    assert time.perf_counter() - started < 1.0
    # The slowest shape still accepted, on a 500-character name, while another organisation reads.
    assert (await api.post("/v2.0/contacts", key, json={"phone": "14155552672",
                                                        "contactName": "a" * 499 + "!"})).status == 201
    other = await make_tenant(client, name="Other")
    started = time.perf_counter()
    slow = await api.post("/v2.0/contacts/filter", key, json={"filter": {"contactName": "a.{0,16}a*!x"}})
    assert slow.status == 200
    assert (await api.get("/v2.0/contacts", other.legacy_key)).status == 200
    assert time.perf_counter() - started < 1.0
