"""Billing and account routes (spec: Endpoints → Billing and account)."""
from __future__ import annotations

from leadline.rest_compat.table import Reply, Route, spread

PAGINATION = "pagination { page limit total totalPages hasNext }"
SUBSCRIPTION = """subscriptionId plan { id name } billingCycle status paymentStatus startDate endDate amountPaid
                  currency createdAt"""


def _plan_reply(result: dict) -> Reply:
    """GraphQL lists limits and features; REST reports them as maps keyed by plan key."""
    data = dict(result)
    data["limits"] = {row.pop("key"): row for row in result["limits"]}
    data["features"] = {row["key"]: row["enabled"] for row in result["features"]}
    return Reply({"data": data})


ROUTES = [
    Route("GET", "/v2.0/billing/plan", "billing:read", summary="Plan, limits with usage, and features",
          operation=f"""query {{ billingPlan {{
              plan {{ name description pricing {{ currency monthly yearly }} }}
              subscription {{ {SUBSCRIPTION} }}
              limits {{ key limit used remaining }}
              features {{ key enabled }} }} }}""",
          reply=_plan_reply),
    Route("GET", "/v2.0/billing/subscriptions", "billing:read", summary="Subscription history",
          operation=f"""query($status: String, $page: Int, $limit: Int) {{
              billingSubscriptions(status: $status, page: $page, limit: $limit) {{
                  data {{ {SUBSCRIPTION} }} {PAGINATION} }} }}""",
          reply=spread),
    Route("GET", "/v2.0/billing/payments", "billing:read", summary="Payments",
          operation=f"""query($status: String, $paymentFor: String, $page: Int, $limit: Int) {{
              billingPayments(status: $status, paymentFor: $paymentFor, page: $page, limit: $limit) {{
                  data {{ paymentId orderId amount baseAmount amountUSD currency
                          tax {{ gst gstPercent transactionCharge transactionChargePercent totalTax }}
                          status paymentFor gateway subscriptionId isRecurring createdAt }}
                  {PAGINATION} }} }}""",
          reply=spread),
    Route("GET", "/v2.0/account/wallet/balance", "billing:read", summary="Wallet balance",
          operation="query { walletBalance { balance currency isActive } }"),
]
