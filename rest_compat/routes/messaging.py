"""Chat messaging and scheduled-message routes (spec: Endpoints → Chat messaging, Scheduled messages)."""
from __future__ import annotations

from leadline.rest_compat.table import Reply, Route, spread

PAGINATION = "pagination { page limit total totalPages hasNext }"
SEND = "scheduled messageId status scheduleId scheduledAt timezone recipient type template { name id language }"
STATUS = """messageId cmid status recipient brandNumber type template { name id language } scheduleId
            error { code title message } timestamps { accepted sent delivered read failed } createdAt updatedAt"""
SCHEDULE = """scheduleId status kind type recipient brandNumber scheduledAt timezone template { name id language }
              content messageId error { code message } sentAt cancelledAt createdAt updatedAt"""


def _send_reply(result: dict) -> Reply:
    """200 `{messageId, status, recipient, ...}` when sent now; 201 `{scheduleId, ...}` when scheduled."""
    detail = {"template": result["template"]} if result["template"] is not None else {"type": result["type"]}
    if result["scheduled"]:
        return Reply({"data": {"scheduleId": result["scheduleId"], "recipient": result["recipient"],
                               "scheduledAt": result["scheduledAt"], "timezone": result["timezone"], **detail}},
                     status=201)
    return Reply({"data": {"messageId": result["messageId"], "status": result["status"],
                           "recipient": result["recipient"], **detail}}, status=200)


ROUTES = [
    Route("POST", "/v2.0/chatapp/send", "messages:send", summary="Send (or schedule) an approved template",
          body="input", reply=_send_reply,
          operation=f"""mutation($input: SendTemplateInput!) {{ sendTemplateMessage(input: $input) {{ {SEND} }} }}"""),
    Route("POST", "/v2.0/chatapp/message", "messages:send", summary="Send (or schedule) a freeform message",
          body="input", reply=_send_reply,
          operation=f"""mutation($input: SendMessageInput!) {{ sendChatMessage(input: $input) {{ {SEND} }} }}"""),
    Route("GET", "/v2.0/chatapp/message/status", "messages:read", summary="Delivery status of a sent message",
          operation=f"""query($messageId: String, $brandNumber: String, $retry: Boolean) {{
              chatMessageStatus(messageId: $messageId, brandNumber: $brandNumber, retry: $retry) {{ {STATUS} }} }}"""),
    Route("GET", "/v2.0/scheduled-messages", "messages:read", summary="Scheduled messages, newest first",
          operation=f"""query($page: Int, $limit: Int, $status: String) {{
              scheduledMessages(page: $page, limit: $limit, status: $status) {{ data {{ {SCHEDULE} }} {PAGINATION} }} }}""",
          reply=spread),
    Route("GET", "/v2.0/scheduled-messages/{scheduleId}", "messages:read", summary="One scheduled message",
          operation=f"""query($scheduleId: String!) {{ scheduledMessage(scheduleId: $scheduleId) {{ {SCHEDULE} }} }}"""),
    Route("DELETE", "/v2.0/scheduled-messages/{scheduleId}", "messages:send",
          summary="Cancel a scheduled message (only while scheduled)",
          operation=f"""mutation($scheduleId: String!) {{
              cancelScheduledMessage(scheduleId: $scheduleId) {{ {SCHEDULE} }} }}"""),
]
