"""One declaration per operation: what start-up refuses, and what the one runner enforces for every entry
point (REST, GraphQL, and direct calls as the MCP server and jobs make them)."""
from __future__ import annotations

import logging
from dataclasses import replace

import pytest
from bson import ObjectId

from leadline.resolvers.auth.snapshots import KeySnapshot, OrgSnapshot
from leadline.resolvers.billing.limits import limit_of
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.events import emit
from leadline.resolvers.runner import DeclarationError, OperationSpec
from leadline.schema import OPERATIONS, build_schema, operation, schema
from leadline.schema.bindings import McpTool
from leadline.schema.operations import Operations
from leadline.schema.billing.types import PlanOverview
from tests.helpers import assert_error

# The MCP tool names of the issue that will expose them (one tool per route; two routes may share one).
MCP_TOOLS = {
    "send_template_message", "send_message", "get_message_status", "list_scheduled_messages",
    "cancel_scheduled_message", "list_contacts", "filter_contacts", "find_contact_by_phone", "upsert_contact",
    "list_contact_fields", "create_custom_field", "update_custom_field", "delete_custom_field", "list_tags",
    "create_tag", "update_tag", "delete_tag", "list_templates", "get_template", "create_template",
    "get_chat_history", "list_conversations", "get_plan", "list_subscriptions", "list_payments",
    "get_wallet_balance", "get_channel_status",
    "list_teams", "create_team", "update_team", "list_agents", "assign_conversation", "unassign_conversation",
    "get_assignment_history", "list_inbox_statuses", "set_conversation_status",
    "get_lead_segmentation", "replace_lead_segmentation", "update_lead_settings", "list_lead_categories",
    "create_lead_category", "update_lead_category", "delete_lead_category", "get_lead_followups", "set_lead_followups",
    "list_lead_insights", "create_lead_insight", "update_lead_insight", "delete_lead_insight", "get_daily_summary",
    "get_pipeline_snapshots",
    "preview_campaign_audience", "create_campaign", "list_campaigns", "get_campaign_report", "cancel_campaign",
    "get_assistant_options", "list_assistants", "get_assistant", "create_assistant", "update_assistant",
    "toggle_assistant", "delete_assistant", "get_assistant_history", "restore_assistant_version",
    "get_tool_schema", "list_tools", "get_tool", "create_tool", "update_tool", "toggle_tool", "delete_tool",
    "get_tool_history", "restore_tool_version", "list_tool_runs",
}


def ctx_of(services, *, scopes=("*",), plan="business", active=True, kind="scoped") -> RequestContext:
    org = OrgSnapshot(ObjectId(), "Acme", plan, "UTC", active, ())
    key = KeySnapshot(ObjectId(), kind, frozenset(scopes), "test")
    return RequestContext(services=services, org=org, key=key)


# --- declarations ---------------------------------------------------------------------------------

def test_an_operation_without_a_scope_cannot_be_declared():
    ops = Operations("x")
    with pytest.raises(TypeError, match="scope"):
        ops.query(description="no scope")
    for scope in ("", "contacts:rede"):
        with pytest.raises(DeclarationError):
            @ops.query(scope=scope, description="bad scope")
            async def bad(ctx: RequestContext) -> int:
                return 1
    with pytest.raises(DeclarationError, match="unknown error codes"):
        OperationSpec("x", "query", "contacts:read", errors=("NOT_A_CODE",))


def test_every_root_field_is_a_declared_operation_with_a_scope():
    graphql = schema._schema
    fields = {*graphql.query_type.fields, *graphql.mutation_type.fields}
    fields |= set(graphql.subscription_type.fields) if graphql.subscription_type else set()
    assert fields == {op.name for op in OPERATIONS}
    assert all(op.spec.scope for op in OPERATIONS)


def test_every_route_is_an_mcp_tool_of_the_published_list():
    rest = [op for op in OPERATIONS if op.rest]
    assert all(op.mcp is not None for op in rest), [op.name for op in rest if op.mcp is None]
    names = [op.mcp.name for op in OPERATIONS if op.mcp]
    assert set(names) == MCP_TOOLS
    # A name is used twice only when the second operation is a variant of the first.
    shared = {n for n in names if names.count(n) > 1}
    assert shared == {"list_scheduled_messages", "list_contact_fields", "list_lead_categories", "set_lead_followups",
                      "list_lead_insights"}
    assert all(sum(1 for op in OPERATIONS if op.mcp and op.mcp.name == n and op.mcp.variant is None) == 1
               for n in shared)


def test_graphql_only_fields_are_in_graphql_not_in_rest_selections():
    from leadline.rest_compat.compile import document_for

    assert "id" in PlanOverview.__strawberry_definition__.fields[0].type.__strawberry_definition__.fields[0].name
    document = document_for(schema._schema, operation("billingPlan"))
    assert "plan { name description pricing" in document


async def test_graphql_selects_a_graphql_only_field(api, tenant):
    resp = await api.graphql("{ billingPlan { plan { id name } } }", tenant.legacy_key)
    assert resp.body["data"]["billingPlan"]["plan"] == {"id": "business", "name": "Business"}


# --- the runner, called directly as the MCP server and jobs do -----------------------------------

async def test_a_direct_call_checks_the_scope(services):
    contacts = operation("contacts")
    with pytest.raises(ApiError) as err:
        await contacts(ctx_of(services, scopes=("billing:read",)))
    assert (err.value.code, err.value.extras["required_scope"]) == ("INSUFFICIENT_SCOPE", "contacts:read")
    page = await contacts(ctx_of(services, scopes=("contacts:read",)))
    assert page.data == [] and page.pagination.total == 0


async def test_a_direct_call_checks_the_organisation_state(services):
    with pytest.raises(ApiError) as err:
        await operation("walletBalance")(ctx_of(services, active=False))
    assert err.value.code == "ORG_INACTIVE"


ops = Operations("spine-test")


@ops.query(scope="teams:read", description="gated", feature="team_inbox")
async def gated(ctx: RequestContext) -> int:
    return 1


@ops.query(scope="*", description="full access only")
async def full_access_only(ctx: RequestContext) -> int:
    return 2


@ops.mutation(scope="contacts:write", description="misdeclared", errors=("TAG_NOT_FOUND",))
async def misdeclared(ctx: RequestContext, what: str) -> int:
    if what == "code":
        raise ApiError("CONTACT_NOT_FOUND", "not declared")
    if what == "declared":
        raise ApiError("TAG_NOT_FOUND", "declared")
    if what == "event":
        await emit(ctx, "contact.created", {})
    if what == "limit":
        limit_of(ctx, "max_contact_tags")
    return 3


async def test_the_plan_feature_is_checked(services):
    with pytest.raises(ApiError) as err:
        await gated(ctx_of(services, plan="free", scopes=("teams:read",)))
    assert err.value.code == "FEATURE_NOT_ENABLED"
    assert await gated(ctx_of(services, plan="growth", scopes=("teams:read",))) == 1


async def test_scope_star_means_full_access_keys_only(services):
    with pytest.raises(ApiError) as err:
        await full_access_only(ctx_of(services, scopes=("teams:read", "contacts:read")))
    assert (err.value.code, err.value.extras["required_scope"]) == ("INSUFFICIENT_SCOPE", "*")
    assert await full_access_only(ctx_of(services, scopes=("*",))) == 2
    assert await full_access_only(ctx_of(services, scopes=(), kind="legacy")) == 2


@pytest.mark.parametrize("what", ["code", "event", "limit"])
async def test_what_a_declaration_does_not_say_fails_in_development(services, what):
    with pytest.raises(DeclarationError, match="misdeclared"):
        await misdeclared(ctx_of(services), what=what)
    with pytest.raises(ApiError, match="declared"):
        await misdeclared(ctx_of(services), what="declared")


async def test_what_a_declaration_does_not_say_is_logged_in_production(services, caplog):
    production = replace(services, settings=replace(services.settings, environment="production"))
    with caplog.at_level(logging.WARNING, logger="leadline.operations"):
        with pytest.raises(ApiError) as err:
            await misdeclared(ctx_of(production), what="code")
    assert err.value.code == "CONTACT_NOT_FOUND"  # the refusal itself still reaches the caller
    assert any("raised CONTACT_NOT_FOUND, which it does not declare" in r.getMessage() for r in caplog.records)


async def test_graphql_goes_through_the_runner(aiohttp_client, settings, tenant):
    from leadline.app import create_app
    from tests.helpers import Api

    client = await aiohttp_client(create_app(settings, graphql_schema=build_schema(tuple(ops.items)),
                                             operations=tuple(ops.items)))
    api = Api(client)
    await tenant.set_plan("free")
    key = await tenant.key("teams:read")
    resp = await api.graphql("{ gated }", key)
    assert resp.body["errors"][0]["extensions"]["code"] == "FEATURE_NOT_ENABLED"
    resp = await api.graphql("{ fullAccessOnly }", key)
    assert resp.body["errors"][0]["extensions"] == {"code": "INSUFFICIENT_SCOPE", "status": 403,
                                                    "required_scope": "*"}


async def test_rest_refuses_the_scope_before_reading_the_body(api, tenant):
    key = await tenant.key("contacts:read")
    resp = await api.post("/v2.0/contacts", key, data=b"{not json", headers={"Content-Type": "application/json"})
    assert_error(resp, 403, "INSUFFICIENT_SCOPE", marker="error")


def test_mcp_variants_name_an_argument_of_their_operation():
    for op in OPERATIONS:
        if op.mcp and op.mcp.variant:
            argument = op.mcp.variant.split("=")[0]
            field = schema._schema.query_type.fields.get(op.name) or schema._schema.mutation_type.fields[op.name]
            # set_lead_followups: `category` selects the category route, whose path names it `name`.
            assert argument in field.args or argument in ("type", "category"), (op.name, argument)
            assert isinstance(op.mcp, McpTool)
