"""The reusable plan checks (limits and features) and how their refusals look on the wire."""
from __future__ import annotations

import pytest
from bson import ObjectId

from leadline.resolvers.billing.limits import check_limit
from leadline.resolvers.billing.plans import require_feature
from leadline.resolvers.context import OrgSnapshot, RequestContext
from leadline.resolvers.errors import ApiError
from leadline.rest_compat.envelope import error_body
from leadline.schema.bindings import SUCCESS_MARKER


def _ctx(services, plan: str) -> RequestContext:
    return RequestContext.system(services, OrgSnapshot(ObjectId(), "Acme", plan, "UTC", True, ()))


def test_limit_exceeded_carries_key_current_and_limit():
    with pytest.raises(ApiError) as err:
        check_limit("max_contact_tags", 10, 10)
    assert err.value.status == 403
    assert error_body(err.value, SUCCESS_MARKER) == {
        "success": False, "code": "LIMIT_EXCEEDED", "message": "Plan limit reached for max_contact_tags: 10 of 10 used.",
        "limitKey": "max_contact_tags", "current": 10, "limit": 10}
    check_limit("max_contact_tags", 9, 10)  # the last slot is still free
    check_limit("max_contact_tags", 10_000, None)  # None = unlimited


def test_plan_limit_exceeded_is_the_same_check_with_the_lead_code():
    with pytest.raises(ApiError) as err:
        check_limit("max_lead_categories", 3, 3, code="PLAN_LIMIT_EXCEEDED")
    assert err.value.status == 403
    assert error_body(err.value, SUCCESS_MARKER) == {
        "success": False, "code": "PLAN_LIMIT_EXCEEDED",
        "message": "Plan limit reached for max_lead_categories: 3 of 3 used.",
        "limitKey": "max_lead_categories", "current": 3, "limit": 3}


def test_features_follow_the_plan(services):
    with pytest.raises(ApiError) as err:
        require_feature(_ctx(services, "free"), "team_inbox")
    assert err.value.status == 403
    assert error_body(err.value, SUCCESS_MARKER) == {
        "success": False, "code": "FEATURE_NOT_ENABLED",
        "message": "The 'team_inbox' feature is not enabled on the Free plan."}
    with pytest.raises(ApiError) as err:
        require_feature(_ctx(services, "growth"), "ai_followups", code="PLAN_FEATURE_DISABLED")
    assert err.value.status == 403
    assert error_body(err.value, SUCCESS_MARKER)["code"] == "PLAN_FEATURE_DISABLED"
    assert error_body(err.value, SUCCESS_MARKER)["success"] is False
    require_feature(_ctx(services, "business"), "ai_followups")
