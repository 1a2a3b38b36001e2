"""The `meta` adapter: speaks the WhatsApp Cloud API (Graph API) shape over HTTP.

Base URL comes from CHATAPP_GRAPH_URL, so tests point it at a fake Graph server on loopback.
"""
from __future__ import annotations

import asyncio
from typing import Any

import aiohttp

from models.channels import ChannelAccount
from resolvers.providers.base import LiveStatus, PhoneNumberInfo, ProviderErrorInfo

TOKEN_EXPIRED_CODES = {190}
PERMISSION_CODES = {10, 33, 200}


def provider_error(http_status: int | None, body: Any) -> ProviderErrorInfo:
    """The Graph API's `{"error": {...}}` as our error info."""
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        return ProviderErrorInfo(http_status, None, None, f"provider answered HTTP {http_status}")
    return ProviderErrorInfo(http_status, err.get("code"), err.get("error_subcode"),
                             str(err.get("message") or err.get("error_user_msg") or "provider error"))


def live_status_for(error: ProviderErrorInfo) -> str:
    if error.provider_error_code in TOKEN_EXPIRED_CODES:
        return "token_expired"
    if error.provider_error_code in PERMISSION_CODES:
        return "permission_denied"
    return "error"


class MetaAdapter:
    name = "meta"

    def __init__(self, graph_url: str, timeout: float = 10.0) -> None:
        self.graph_url = graph_url.rstrip("/")
        self.timeout = aiohttp.ClientTimeout(total=timeout)
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
            status, body = await self.request("GET", object_id, account.access_token, params={"fields": fields})
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

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
