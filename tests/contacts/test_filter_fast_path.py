"""A single-term filter (seq windows + maintained count) returns exactly what the aggregation path does."""
import math

from bson import ObjectId

from leadline.models.contacts import ContactTermCount
from leadline.resolvers.contacts import counters, term_counts, windows
from leadline.resolvers.contacts.filters import build_filter
from leadline.resolvers.contacts.queries import aggregate_page, filter_contacts
from leadline.resolvers.contacts.tags import delete_tag
from leadline.resolvers.contacts.terms import term
from leadline.resolvers.contacts.upsert import ContactWrite, upsert_contact
from leadline.resolvers.pagination import PageRequest
from tests.contacts.helpers import make_field, make_tag, org_id, system_ctx

N = 300
COUNTRIES = ("IN", "IN", "IN", "US", "GB", "AE")


async def _seed(api, services, tenant) -> dict[str, str]:
    """N contacts with skewed values: common, rare, only-oldest, only-newest; a skipped seq; updates; a
    deleted tag. Returns the tag ids by name."""
    key, ctx = tenant.legacy_key, system_ctx(services, tenant)
    await make_field(api, key, fieldName="Plan")
    await make_field(api, key, fieldName="Score", fieldType="number")
    await make_field(api, key, fieldName="Interests", fieldType="multiselect", options=["Shoes", "Bags", "Hats"])
    tags = {name: (await make_tag(api, key, name))["_id"] for name in ("vip", "old", "new", "rare", "unused", "gone")}
    for i in range(N):
        if i == N // 2:  # a create that lost its race: its seq is never used
            await counters.reserve_slot(ctx.org_id, None)
            await counters.release_slot(ctx.org_id)
        on = [tags["vip"]] * (i % 5 == 0) + [tags["old"]] * (i < 30) + [tags["new"]] * (i >= N - 20) \
            + [tags["rare"]] * (i in (7, 211)) + [tags["gone"]] * (i % 3 == 0)
        await upsert_contact(ctx, ContactWrite(
            phone=f"1415555{1000 + i}", text={"city": ("Pune", "Delhi")[i % 2], "contactName": f"Person {i}"},
            countryCode="1", flags={"optedOut": i % 7 == 0, "auto_added": i % 3 == 1},
            customFields={"plan": "Gold" if i < 12 else f"p{i % 4}", "score": 2.5 if i % 11 == 0 else i % 10,
                          "interests": ["Shoes", "Bags"][: 1 + i % 2]},
            tags=on))
    for i in range(0, N, 9):  # updates move contacts between values (and the counts with them)
        await upsert_contact(ctx, ContactWrite(phone=f"1415555{1000 + i}", customFields={"plan": "Moved"},
                                               flags={"optedOut": True}))
    await delete_tag(ctx, tags["gone"])
    return tags


def _shapes(tags: dict[str, str]) -> list[dict]:
    return [
        {"optedOut": True}, {"optedOut": False}, {"auto_added": True}, {"optedOut": [True]},
        {"tags": tags["vip"]}, {"tags": [tags["old"]]}, {"tags": tags["new"]}, {"tags": tags["rare"]},
        {"tags": tags["unused"]}, {"tags": tags["gone"]}, {"tags": str(ObjectId())},
        {"customFields.plan": ["p1"]}, {"customFields.plan": ["Gold"]}, {"customFields.plan": ["Moved"]},
        {"customFields.score": 3}, {"customFields.score": 2.5}, {"customFields.interests": ["Bags"]},
        {"customFields.interests": ["Shoes"]}, {"customFields.unknown": 1},
        {"country": ["IN"]}, {"city": ["Pune"]}, {"contactName": ["Person 42"]}, {"countryCode": ["1"]},
    ]


def _pages(total: int) -> list[tuple[int, int]]:
    combos = [(1, 1), (2, 1), (1, 50), (1, 500), (3, 7), (40, 7)]
    for limit in (1, 7, 50):
        last = max(1, math.ceil(total / limit))
        combos += [(last, limit), (last + 1, limit)]
    return combos


async def _compare(ctx, flt: dict, expect_total: int | None = None) -> int:
    query = build_filter(ctx.org_id, flt)
    assert windows.single_term(query) is not None, flt
    reference_total = None
    for page, limit in _pages((await aggregate_page(ctx, query, PageRequest(1, 1))).total):
        fast = await filter_contacts(ctx, flt, page, limit)
        slow = await aggregate_page(ctx, query, PageRequest(page, limit))
        assert [c.model_dump() for c in fast.items] == [c.model_dump() for c in slow.items], (flt, page, limit)
        # The windows themselves at every depth, not only where filter_contacts finds them worth it.
        probed, _ = await windows.term_page(ctx.org_id, query["terms"], (page - 1) * limit, limit)
        assert [c.model_dump() for c in probed] == [c.model_dump() for c in slow.items], (flt, page, limit)
        if expect_total is None:
            assert fast.pagination == slow.pagination, (flt, page, limit)
        reference_total = slow.total
    return reference_total


async def test_every_single_term_shape_matches_the_aggregation_path(api, services, tenant):
    tags = await _seed(api, services, tenant)
    ctx = system_ctx(services, tenant)
    totals = {str(flt): await _compare(ctx, flt) for flt in _shapes(tags)}
    # The seed covers what it means to: common, rare, one-sided and empty terms.
    assert totals[str({"tags": [tags["old"]]})] == 30
    assert totals[str({"tags": tags["rare"]})] == 2 and totals[str({"tags": tags["unused"]})] == 0
    assert totals[str({"tags": tags["gone"]})] == 0 and totals[str({"country": ["IN"]})] == 0
    assert 100 < totals[str({"optedOut": False})] < N


async def test_window_sizing_and_a_drifted_count(api, services, tenant):
    tags = await _seed(api, services, tenant)
    ctx, org = system_ctx(services, tenant), org_id(tenant)
    vip = term(org, "tags", ObjectId(tags["vip"]))
    count, (_, last_seq) = await term_counts.count_of(org, vip), await counters.snapshot(org)
    found, exhausted = await windows.probe(org, vip, 20, count, last_seq)
    assert 20 <= len(found) <= 40 and not exhausted  # about 1.5 pages, not every match
    assert [d["seq"] for d in found] == sorted((d["seq"] for d in found), reverse=True)
    # Matches only among the oldest contacts: the probe widens until it reaches them.
    old = term(org, "tags", ObjectId(tags["old"]))
    found, _ = await windows.probe(org, old, 10, await term_counts.count_of(org, old), last_seq)
    assert [d["seq"] for d in found[:10]] == list(range(30, 20, -1))

    collection = ContactTermCount.get_pymongo_collection()
    for wrong in (3, 5000):  # too low: windows too wide; too high: windows too narrow
        await collection.update_one({"org_id": org, "term": vip}, {"$set": {"total": wrong}})
        await _compare(ctx, {"tags": tags["vip"]}, expect_total=wrong)
        past_end = await filter_contacts(ctx, {"tags": tags["vip"]}, 100, 50)
        assert past_end.items == [] and past_end.total == N // 5  # the probe read every match: exact
    await collection.delete_one({"org_id": org, "term": vip})
    await _compare(ctx, {"tags": tags["vip"]}, expect_total=0)  # no count at all: still the rows


def test_deep_pages_take_the_single_pass():
    assert windows.worth_probing(50, 2000) and windows.worth_probing(1, 0)
    assert not windows.worth_probing(1000, 2000)


def test_only_one_term_takes_the_fast_path():
    org, tag = ObjectId(), ObjectId()
    assert windows.single_term(build_filter(org, {"tags": str(tag)})) == f"{org}|tags|o:{tag}"
    for flt in ({"country": ["IN", "US"]}, {"tags": str(tag), "optedOut": True}, {"contactName": "ada"},
                {"phone": ["14155552671"]}, {}):
        assert windows.single_term(build_filter(org, flt)) is None, flt
