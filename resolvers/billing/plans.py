"""The plan catalogue: every numeric limit key of the spec and the feature flags (docs/plans.md)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from leadline.resolvers.errors import ApiError

if TYPE_CHECKING:
    from leadline.resolvers.context import RequestContext

LIMIT_KEYS: tuple[str, ...] = (
    "max_contacts",
    "max_templates",
    "max_campaigns_per_month",
    "max_conversations_per_month",
    "max_custom_attributes",
    "max_contact_tags",
    "max_models",
    "max_tools",
    "max_teams",
    "max_agents",
    "max_lead_categories",
    "max_ai_followups",
    "max_ai_insights",
    "api_rate_limit_per_sec",
    "api_rate_limit_per_day",
)

FEATURES: tuple[str, ...] = (
    "api_access",
    "mcp_access",
    "scheduled_messages",
    "campaigns",
    "ai_assistants",
    "ai_tools",
    "lead_categorization",
    "ai_followups",
    "ai_insights",
    "team_inbox",
    "webhooks",
    "catalogs",
    "storeapp_integration",
    "crmapp_integration",
)


@dataclass(frozen=True)
class Plan:
    id: str
    name: str
    description: str
    monthly_price: float
    yearly_price: float
    limits: dict[str, int]
    features: frozenset[str]


def _limits(*values: int) -> dict[str, int]:
    assert len(values) == len(LIMIT_KEYS)
    return dict(zip(LIMIT_KEYS, values))


#                        contacts templ camp/mo conv/mo attrs tags models tools teams agents cats fups insights rps  rpd
PLANS: dict[str, Plan] = {
    "free": Plan("free", "Free", "For trying Leadline with one number and a small audience.", 0, 0,
                 _limits(1_000, 10, 5, 1_000, 5, 10, 1, 5, 1, 2, 3, 0, 0, 5, 100),
                 frozenset({"api_access", "mcp_access", "scheduled_messages", "campaigns", "ai_assistants", "ai_tools"})),
    "growth": Plan("growth", "Growth", "For small teams running campaigns and an AI assistant.", 49, 490,
                   _limits(10_000, 50, 50, 10_000, 20, 50, 3, 25, 5, 10, 10, 10, 10, 10, 1_000),
                   frozenset({"api_access", "mcp_access", "scheduled_messages", "campaigns", "ai_assistants",
                              "ai_tools", "lead_categorization", "team_inbox", "webhooks", "catalogs"})),
    "pro": Plan("pro", "Pro", "For businesses automating sales with AI follow-ups and insights.", 149, 1_490,
                _limits(100_000, 250, 500, 100_000, 50, 200, 10, 100, 20, 50, 25, 50, 25, 20, 20_000),
                frozenset({"api_access", "mcp_access", "scheduled_messages", "campaigns", "ai_assistants",
                           "ai_tools", "lead_categorization", "ai_followups", "ai_insights", "team_inbox",
                           "webhooks", "catalogs", "storeapp_integration"})),
    "business": Plan("business", "Business", "For high-volume teams with every integration.", 399, 3_990,
                     _limits(1_000_000, 1_000, 5_000, 1_000_000, 100, 1_000, 50, 500, 100, 250, 100, 200, 100,
                             60, 50_000),
                     frozenset(FEATURES)),
}

# Limits enforced by the API gateway rather than counted from stored documents.
UNTRACKED_LIMITS = frozenset({"api_rate_limit_per_sec", "api_rate_limit_per_day"})


def plan_for(plan_id: str) -> Plan:
    return PLANS.get(plan_id, PLANS["free"])


def require_feature(ctx: "RequestContext", feature: str, *, code: str = "FEATURE_NOT_ENABLED") -> None:
    plan = plan_for(ctx.org.plan)
    if feature not in plan.features:
        raise ApiError(code, f"The '{feature}' feature is not enabled on the {plan.name} plan.")
