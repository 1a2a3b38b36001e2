"""Property-based fuzzing of every REST route's body: whatever arrives, the answer is never a 5xx and
always the documented JSON envelope.

Bodies are drawn by hypothesis from each route's GraphQL input type (its field names, with values of
the right and of every wrong JSON type, nested and odd strings) and as arbitrary JSON. Examples are
bounded (LEADLINE_FUZZ_EXAMPLES, default 25 per route) so the suite stays fast; raise it locally to
search longer.
"""
from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import replace

import pytest
from graphql import GraphQLInputObjectType, GraphQLList, GraphQLNonNull, get_named_type
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from leadline.rest_compat.compile import compile_routes
from leadline.schema import OPERATIONS, schema
from tests.messaging.support import seed_template
from tests.templates.support import connect_brand, template_settings

EXAMPLES = int(os.environ.get("LEADLINE_FUZZ_EXAMPLES", "25"))
ROUTES = [c for c in compile_routes(schema, OPERATIONS) if c.body != "none"]

ODD_TEXT = st.sampled_from(["", " ", "\x00", "\ud7ff", "a" * 5000, "1" * 40, "+1 (415) 555-2671", "$where",
                            "a.b", "(a|aa)+$", "{{1}}", "é🙂", "null", "<script>", "\n\t", "0" * 24])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**63, max_value=2**63),
                    st.floats(allow_nan=False), st.text(max_size=40), ODD_TEXT)
JSON = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                     st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                    max_leaves=12)


def _value_for(graphql_type, depth: int = 0):
    """Values for one input field: mostly of its type, sometimes anything."""
    named = get_named_type(graphql_type)
    inner = graphql_type.of_type if isinstance(graphql_type, GraphQLNonNull) else graphql_type
    if isinstance(inner, GraphQLList):
        return st.one_of(st.lists(_value_for(inner.of_type, depth + 1), max_size=3), JSON)
    if isinstance(named, GraphQLInputObjectType) and depth < 3:
        return st.one_of(_object_for(named, depth + 1), JSON)
    by_name = {"String": st.one_of(st.text(max_size=30), ODD_TEXT), "Int": st.integers(-10, 10**6),
               "Float": st.floats(allow_nan=False, allow_infinity=False), "Boolean": st.booleans()}
    return st.one_of(by_name.get(named.name, JSON), JSON)


def _object_for(input_type: GraphQLInputObjectType, depth: int = 0):
    fields = {name: _value_for(field.type, depth) for name, field in input_type.fields.items()}
    return st.fixed_dictionaries({}, optional=fields)


def _body_for(compiled):
    graphql = schema._schema
    root = graphql.query_type if compiled.operation.kind == "query" else graphql.mutation_type
    args = root.fields[compiled.operation.name].args
    if compiled.body == "input":
        return st.one_of(_object_for(get_named_type(args["input"].type)), JSON)
    return st.one_of(st.fixed_dictionaries({}, optional={n: _value_for(a.type) for n, a in args.items()}), JSON)


@pytest.fixture
def settings(settings):
    return replace(template_settings(settings), sandbox_status_delays=(60.0, 61.0, 62.0))


@pytest.mark.parametrize("compiled", ROUTES, ids=lambda c: f"{c.method} {c.path}")
async def test_no_body_breaks_a_route(api, tenant, compiled):
    await connect_brand(tenant)
    await seed_template(tenant)
    key = await tenant.key("*")
    path = compiled.path.replace("{", "").replace("}", "")  # path parameters get their own names as ids
    loop = asyncio.get_running_loop()
    failures, statuses = [], []

    @hsettings(max_examples=EXAMPLES, deadline=None, database=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(body=_body_for(compiled))
    def probe(body):
        time.sleep(0.02)  # under the key's 60 requests per second, so the route itself answers
        raw = json.dumps(body)
        resp = asyncio.run_coroutine_threadsafe(
            api.call(compiled.method, path, key, data=raw, headers={"Content-Type": "application/json"}), loop)
        result = resp.result(60)
        envelope = isinstance(result.body, dict) and (result.body.get("success") is not None or
                                                      result.body.get("error") is True)
        statuses.append(result.status)
        if result.status >= 500 or not envelope:
            failures.append((result.status, raw[:300], str(result.body)[:300]))
        assert result.status < 500 and envelope, (result.status, raw[:300], result.body)

    await loop.run_in_executor(None, probe)
    assert failures == []
    assert 429 not in statuses
