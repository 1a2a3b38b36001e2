"""The `meta` adapter: speaks the WhatsApp Cloud API (Graph API) shape over HTTP.

Base URL comes from CHATAPP_GRAPH_URL, so tests point it at a fake Graph server on loopback.
Template submission is `POST /{waba id}/message_templates`; sample media goes through the
Resumable Upload API (`POST /{app id}/uploads`, then `POST /{upload id}` with the bytes). The app
id defaults to the Graph alias `app` (the app that owns the access token). Sends are
`POST /{phone number id}/messages`; a BSUID recipient goes in `recipient` instead of `to`.
"""
from __future__ import annotations

import asyncio
from typing import Any

import aiohttp

from leadline.models.channels import ChannelAccount
from leadline.resolvers.phones import is_bsuid
from leadline.resolvers.secrets import reveal
from leadline.resolvers.providers.base import (
    LiveStatus,
    MediaUpload,
    MediaUploadFailed,
    OutboundTemplate,
    PhoneNumberInfo,
    ProviderErrorInfo,
    ProviderRejected,
    SentMessage,
    SubmittedTemplate,
    TemplateSubmission,
)

TOKEN_EXPIRED_CODES = {190}
PERMISSION_CODES = {10, 33, 200}


def provider_error(http_status: int | None, body: Any) -> ProviderErrorInfo:
    """The Graph API's `{"error": {...}}` as our error info."""
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        return ProviderErrorInfo(http_status, None, None, f"provider answered HTTP {http_status}")
    return ProviderErrorInfo(http_status, err.get("code"), err.get("error_subcode"),
                             str(err.get("message") or err.get("error_user_msg") or "provider error"))


def rejection(http_status: int | None, body: Any) -> ProviderRejected:
    """The Graph API's error object with all the fields a client needs to fix its template."""
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        return ProviderRejected(f"provider answered HTTP {http_status}", http_status=http_status)
    return ProviderRejected(str(err.get("message") or "provider error"), http_status=http_status,
                            code=err.get("code"), subcode=err.get("error_subcode"),
                            user_title=err.get("error_user_title"), user_msg=err.get("error_user_msg"),
                            trace_id=err.get("fbtrace_id"))


def live_status_for(error: ProviderErrorInfo) -> str:
    if error.provider_error_code in TOKEN_EXPIRED_CODES:
        return "token_expired"
    if error.provider_error_code in PERMISSION_CODES:
        return "permission_denied"
    return "error"


class MetaAdapter:
    name = "meta"

    def __init__(self, graph_url: str, timeout: float = 10.0, app_id: str = "app") -> None:
        self.graph_url = graph_url.rstrip("/")
        self.app_id = app_id
        self.timeout = aiohttp.ClientTimeout(total=timeout)
        # A send waits less than a template submission: the API request that triggered it is waiting.
        self.send_timeout = aiohttp.ClientTimeout(total=min(timeout, 8.0))
        self._session: aiohttp.ClientSession | None = None

    def session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=self.timeout)
        return self._session

    async def request(self, method: str, path: str, token: str, **kwargs: Any) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {token}"}
        async with self.session().request(method, f"{self.graph_url}/{path.lstrip('/')}", headers=headers,
                                          **kwargs) as resp:
            try:
                body = await resp.json(content_type=None)
            except ValueError:
                body = None
            return resp.status, body

    async def check_health(self, account: ChannelAccount) -> LiveStatus:
        object_id = account.provider_phone_number_id if account.platform == "chatapp" else account.provider_account_id
        if not object_id and not account.access_token:
            return LiveStatus("not_configured")
        if not object_id or not account.access_token:
            return LiveStatus("missing_credentials")
        fields = "verified_name,quality_rating,status" if account.platform == "chatapp" else "id,name"
        try:
            token = await reveal(account.access_token)  # stored encrypted (resolvers/secrets.py)
            status, body = await self.request("GET", object_id, token, params={"fields": fields})
        except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
            return LiveStatus("unknown", phone_number_error=ProviderErrorInfo(None, None, None,
                                                                               f"provider unreachable: {exc!r}"))
        if status >= 400 or not isinstance(body, dict):
            error = provider_error(status, body)
            return LiveStatus(live_status_for(error), phone_number_error=error)
        if account.platform != "chatapp":
            return LiveStatus("connected")
        return LiveStatus("connected", PhoneNumberInfo(body.get("verified_name"), body.get("quality_rating"),
                                                       body.get("status")))

    async def submit_template(self, account: ChannelAccount, template: TemplateSubmission) -> SubmittedTemplate:
        waba_id, token = account.provider_account_id, await reveal(account.access_token)
        if not waba_id or not token:
            raise ProviderRejected("The business account has no provider account id or access token.")
        payload = {"name": template.name, "language": template.language, "category": template.category,
                   "components": template.components}
        try:
            status, body = await self.request("POST", f"{waba_id}/message_templates", token, json=payload)
        except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
            raise ProviderRejected(f"provider unreachable: {exc!r}") from None
        if status >= 400 or not isinstance(body, dict) or not body.get("id"):
            raise rejection(status, body)
        return SubmittedTemplate(provider_template_id=str(body["id"]), status=str(body.get("status") or "PENDING"),
                                 category=str(body.get("category") or template.category))

    async def upload_media(self, account: ChannelAccount, media: MediaUpload) -> str:
        token = await reveal(account.access_token)
        if not token:
            raise MediaUploadFailed("the business account has no access token")
        params = {"file_name": media.filename, "file_length": str(len(media.data)), "file_type": media.mime_type}
        try:
            status, body = await self.request("POST", f"{self.app_id}/uploads", token, params=params)
            if status >= 400 or not isinstance(body, dict) or not body.get("id"):
                raise MediaUploadFailed(f"upload session refused: {provider_error(status, body).message}")
            # The upload step authenticates with `OAuth`, not `Bearer` (Resumable Upload API).
            url = f"{self.graph_url}/{body['id']}"
            async with self.session().post(url, data=media.data,
                                           headers={"Authorization": f"OAuth {token}", "file_offset": "0"}) as resp:
                uploaded = await resp.json(content_type=None)
                if resp.status >= 400 or not isinstance(uploaded, dict) or not uploaded.get("h"):
                    raise MediaUploadFailed(f"upload refused: {provider_error(resp.status, uploaded).message}")
                return str(uploaded["h"])
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as exc:
            raise MediaUploadFailed(f"provider unreachable: {exc!r}") from None

    # --- sends -----------------------------------------------------------------------------
    async def send_template(self, account: ChannelAccount, to: str, template: OutboundTemplate) -> SentMessage:
        body: dict[str, Any] = {"type": "template", "template": {
            "name": template.name, "language": {"code": template.language}}}
        if template.components:
            body["template"]["components"] = template.components
        return await self._send(account, to, body)

    async def send_message(self, account: ChannelAccount, to: str, type: str, content: dict[str, Any]) -> SentMessage:
        return await self._send(account, to, {"type": type, type: content})

    async def _send(self, account: ChannelAccount, to: str, body: dict[str, Any]) -> SentMessage:
        phone_number_id, token = account.provider_phone_number_id, await reveal(account.access_token)
        if not phone_number_id or not token:
            raise ProviderRejected("The business account has no provider phone number id or access token.")
        payload = {"messaging_product": "whatsapp", "recipient_type": "individual",
                   **({"recipient": to} if is_bsuid(to) else {"to": to}), **body}
        try:
            status, reply = await self.request("POST", f"{phone_number_id}/messages", token, json=payload,
                                                 timeout=self.send_timeout)
        except asyncio.TimeoutError:
            raise ProviderRejected("provider timed out") from None
        except aiohttp.ClientError as exc:
            raise ProviderRejected(f"provider unreachable: {exc!r}") from None
        messages = reply.get("messages") if isinstance(reply, dict) else None
        if status >= 400 or not isinstance(messages, list) or not messages or not messages[0].get("id"):
            raise rejection(status, reply)
        return SentMessage(provider_message_id=str(messages[0]["id"]))

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
