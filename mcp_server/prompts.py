"""The three playbook prompts: which tools to call, in which order, and what to check between steps.

- `launch_campaign` (brandNumber, goal): preview → dry run → create → report;
- `triage_inbox` (teamId?): list conversations, read history, assign by team, set status;
- `setup_lead_studio` (businessDescription): the spec's order: read the configuration, create or adjust
  categories and insights, set follow-ups, then enable via the settings.

Every tool a playbook names is a tool of the catalogue (tests/mcp_server checks it). Arguments are text;
a missing required one is a protocol error (INVALID_PARAMS), as the MCP specification asks; others are
ignored.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS


@dataclass(frozen=True)
class Playbook:
    name: str
    title: str
    description: str
    arguments: tuple[types.PromptArgument, ...]
    render: Callable[[dict[str, str]], str]
    # The tools the playbook names, in the order it calls them first (checked against the catalogue).
    tools: tuple[str, ...]

    @property
    def prompt(self) -> types.Prompt:
        return types.Prompt(name=self.name, title=self.title, description=self.description,
                            arguments=list(self.arguments))

    def get(self, arguments: dict[str, str] | None) -> types.GetPromptResult:
        given = {k: v.strip() for k, v in (arguments or {}).items() if isinstance(v, str) and v.strip()}
        missing = [a.name for a in self.arguments if a.required and a.name not in given]
        if missing:
            raise MCPError(INVALID_PARAMS, f"Prompt {self.name} needs the argument(s): {', '.join(missing)}.")
        text = self.render(given)
        return types.GetPromptResult(description=self.description,
                                     messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))])


def _launch_campaign(args: dict[str, str]) -> str:
    brand = args["brandNumber"]
    return f"""Launch a chat campaign from business number {brand}. Goal: {args["goal"]}

Call the Leadline tools in this order; after each step, check what is listed and stop to tell the user
(with the error's code and message) when a check fails. Do not send anything before step 5.

1. get_plan: check that features allow campaigns and that limits.max_campaigns_per_month has a
   remaining count above 0.
2. list_templates with status APPROVED: pick the template that fits the goal, then get_template with its
   _id: read its components (the header format, how many {{{{n}}}} variables the body has, URL buttons
   with {{{{n}}}}). Only APPROVED templates can be sent; a new one (create_template) waits for review.
3. preview_campaign_audience with brandNumber {brand} and an audience (tags or segmentIds, filters, or
   contacts): check that data.totalContacts is above 0, look at data.breakdown (chatappEligible,
   optedOut, undeliverable) and data.sample. Adjust the audience while it is empty or wrong.
4. create_campaign with dryRun true (brandNumber {brand}, campaignName, templateId, the audience,
   variables with one body value per {{{{n}}}} and header/buttons values where the template needs them,
   schedule when the user wants one): check data.totalContacts and every data.resolvedSample body; a
   CAMPAIGN_VARIABLES_INVALID refusal lists in details what to fix. Nothing is created or sent yet.
5. Ask the user to confirm the template, the audience size and the schedule, then call create_campaign
   again with the same arguments and without dryRun. Keep data.campaignId.
6. get_campaign_report with that campaignId: report the delivery counters and rates; list_campaigns
   shows its status. If the user wants to stop it, cancel_campaign (what was sent stays sent).
"""


def _triage_inbox(args: dict[str, str]) -> str:
    team = args.get("teamId")
    scope = (f"Work for team {team}: assign conversations to it (teamId {team})." if team else
             "Choose the team that fits each conversation.")
    return f"""Triage the shared inbox. {scope}

Call the Leadline tools in this order:

1. list_inbox_statuses: learn the workspace's status keys (pending, open, resolved and any custom ones);
   always use these keys, never guess them.
2. list_teams{" (check that team " + team + " exists and is active)" if team else ""} and list_agents:
   who can take conversations (membership status active).
3. list_conversations with archived false: the most recent conversations first (page through with
   page and limit).
4. For each conversation, get_chat_history with its phone (or contactId): read the latest messages and
   contact.window.open (only while it is open can a freeform reply be sent; otherwise a template).
5. assign_conversation with its conversationId and {"teamId " + team if team else "a teamId"} (the
   team's round-robin picks the agent; add agentId to choose one). NO_AVAILABLE_AGENT means the team
   has no agent free: report it or try another team.
6. set_conversation_status with the conversationId and a status key from step 1 (for example open
   while someone works on it, resolved when nothing is left to do, pending when waiting on the customer).
7. get_assignment_history for the conversationId to confirm; finish with a short summary per
   conversation (who has it, which status, why).
"""


def _setup_lead_studio(args: dict[str, str]) -> str:
    return f"""Set up the AI lead studio (lead categorisation, insights and follow-ups) for this business:
{args["businessDescription"]}

Follow the order the service suggests, calling the Leadline tools:

1. get_lead_segmentation: read the whole configuration (settings, categories with their follow-ups,
   defaultFollowups, audienceSegments) before changing anything. get_plan: check the features
   lead_categorization and ai_followups and the limits max_lead_categories, max_ai_followups and
   max_ai_insights.
2. Categories: list_lead_categories, then create_lead_category for each missing stage of this business's
   pipeline (name, and a description that tells the AI when a lead belongs there) or
   update_lead_category to adjust one (newName renames it and moves its contacts). Delete with
   delete_lead_category only with reassignTo when contacts use it (CATEGORY_IN_USE).
3. Insights: list_lead_insights, then create_lead_insight for each fact to extract from conversations
   (key, name, valueType text, number, array or date, options as guidance, a description of what to
   extract) or update_lead_insight.
4. Follow-ups: get_lead_followups, then set_lead_followups without category for the default set and
   with category for one category's own (each follow-up: delay in seconds, prompt, active).
5. Enable last: update_lead_settings with isCategorizationEnabled true (and isFollowupEnabled true when
   follow-ups are set). PLAN_FEATURE_DISABLED or PLAN_LIMIT_EXCEEDED means the plan does not allow it:
   tell the user.
6. get_lead_segmentation again and summarise the configuration.
"""


PLAYBOOKS: dict[str, Playbook] = {p.name: p for p in (
    Playbook("launch_campaign", "Launch a campaign",
             "Preview the audience, dry-run, create and report a campaign, with the checks between steps.",
             (types.PromptArgument(name="brandNumber", description="The business number to send from (digits).",
                                   required=True),
              types.PromptArgument(name="goal", description="What the campaign is for and whom it should reach.",
                                   required=True)),
             _launch_campaign,
             ("get_plan", "list_templates", "get_template", "preview_campaign_audience", "create_campaign",
              "get_campaign_report", "list_campaigns", "cancel_campaign")),
    Playbook("triage_inbox", "Triage the inbox",
             "List conversations, read their history, assign them by team and set their status.",
             (types.PromptArgument(name="teamId", description="Only assign to this team.", required=False),),
             _triage_inbox,
             ("list_inbox_statuses", "list_teams", "list_agents", "list_conversations", "get_chat_history",
              "assign_conversation", "set_conversation_status", "get_assignment_history")),
    Playbook("setup_lead_studio", "Set up the lead studio",
             "Configure lead categories, insights and follow-ups for a business, then enable them.",
             (types.PromptArgument(name="businessDescription", description="What the business sells and to whom.",
                                   required=True),),
             _setup_lead_studio,
             ("get_lead_segmentation", "get_plan", "list_lead_categories", "create_lead_category",
              "update_lead_category", "delete_lead_category", "list_lead_insights", "create_lead_insight",
              "update_lead_insight", "get_lead_followups", "set_lead_followups", "update_lead_settings")),
)}
