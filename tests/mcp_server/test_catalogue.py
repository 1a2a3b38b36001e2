"""The tool catalogue as built from the declarations, without a server: names, schemas, argument mapping.

(What the tools answer is tested through a real `leadline up` in test_mcp.py.)
"""
from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from leadline.mcp_server.catalogue import Catalogue
from leadline.resolvers.errors import ApiError
from leadline.schema import OPERATIONS, schema
from tests.spine.test_operations import MCP_TOOLS


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return Catalogue(schema, OPERATIONS)


def test_every_declared_tool_is_built_with_a_valid_schema(catalogue):
    assert set(catalogue.tools) == MCP_TOOLS and len(catalogue.tools) == 75
    for tool in catalogue.tools.values():
        Draft202012Validator.check_schema(tool.input_schema)
        for route in tool.routes:  # every path parameter is an argument (required unless it selects a variant)
            for name, variable in route.compiled.variables.items():
                if variable.required and name != "input":
                    selector = tool.selector if route is tool.variant else None
                    argument = next(a for a in route.arguments.values() if a.field == name)
                    assert argument.name in tool.input_schema["properties"]
                    assert (argument.name in tool.input_schema.get("required", ())) is (argument.name != selector)


def test_a_variant_argument_selects_the_second_route(catalogue):
    scheduled = catalogue.tools["list_scheduled_messages"]
    assert scheduled.route_for({"page": 2}).operation.name == "scheduledMessages"
    assert scheduled.route_for({"scheduleId": "x"}).operation.name == "scheduledMessage"
    assert scheduled.route_for({"scheduleId": ""}).operation.name == "scheduledMessages"
    fields = catalogue.tools["list_contact_fields"]
    assert fields.route_for({"type": "Custom"}).operation.name == "contactCustomFields"
    assert fields.route_for({"type": "default"}).operation.name == "contactFields"
    assert fields.variables(fields.route_for({"type": "custom"}), {"type": "custom"}) == {}
    followups = catalogue.tools["set_lead_followups"]
    route = followups.route_for({"category": "Hot"})
    assert route.operation.name == "setLeadCategoryFollowups"
    assert followups.variables(route, {"category": "Hot", "followups": []}) == {"name": "Hot",
                                                                              "input": {"followups": []}}


def test_arguments_map_onto_the_routes_variables_as_rest_reads_them(catalogue):
    rename = catalogue.tools["update_lead_category"]
    assert rename.variables(rename.base, {"name": "Hot", "newName": "Warm"}) == {"name": "Hot",
                                                                                 "input": {"name": "Warm"}}
    contacts = catalogue.tools["list_contacts"]
    assert contacts.variables(contacts.base, {"page": "2", "limit": 10}) == {"page": 2, "limit": 10}
    status = catalogue.tools["get_message_status"]  # query-string text: a number is its text
    assert status.variables(status.base, {"messageId": 5, "brandNumber": 1555}) == {"messageId": "5",
                                                                                   "brandNumber": "1555"}
    toggle = catalogue.tools["toggle_tool"]  # body fields stay as given (GraphQL refuses a wrong type)
    assert toggle.variables(toggle.base, {"toolId": "t", "isActive": "yes"}) == {"toolId": "t", "isActive": "yes"}
    with pytest.raises(ApiError) as err:
        contacts.variables(contacts.base, {"colour": "red"})
    assert err.value.code == "VALIDATION_ERROR" and err.value.details[0]["code"] == "UNKNOWN_FIELD"
    with pytest.raises(ApiError) as err:
        contacts.variables(contacts.base, {"limit": "many"})
    assert err.value.details[0] == {"path": "limit", "code": "INVALID_TYPE", "message": "limit must be an integer"}


def test_annotations(catalogue):
    tools = catalogue.tools
    assert tools["list_contacts"].definition.annotations.read_only_hint is True
    assert tools["filter_contacts"].definition.annotations.read_only_hint is True  # a POST that reads
    assert tools["delete_tag"].definition.annotations.destructive_hint is True
    assert tools["upsert_contact"].definition.annotations.destructive_hint is False
