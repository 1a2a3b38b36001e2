"""Outbound HTTP for function tools, with the SSRF guard.

Outside development a call never reaches a private, loopback, link-local, multicast or reserved
address: an IP-literal URL is refused before connecting, and host names are checked by the resolver
the connection itself uses (so a name cannot resolve to a public address when checked and a private
one when connected). Redirects are followed by hand (at most 5), each hop checked the same way;
credentials are not carried to another host.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import aiohttp

from leadline.resolvers.netguard import GuardedResolver, blocked_cause, check_host

MAX_REDIRECTS = 5
MAX_BODY = 64 * 1024
REDIRECTS = (301, 302, 303, 307, 308)
CREDENTIAL_HEADERS = ("authorization", "x-leadline-signature")


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    url: str


async def request(method: str, url: str, *, headers: dict[str, str], params: dict[str, str], data: bytes | None,
                  timeout: float, allow_private: bool) -> Reply:
    """One call (redirects followed); raises netguard.BlockedAddress, asyncio.TimeoutError or aiohttp.ClientError."""
    connector = aiohttp.TCPConnector(resolver=None if allow_private else GuardedResolver(), use_dns_cache=False)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=timeout)) as session:
        origin = urlsplit(url).hostname
        for _ in range(MAX_REDIRECTS + 1):
            if not allow_private:
                check_host(urlsplit(url).hostname)
            try:
                async with session.request(method, url, headers=headers, params=params or None, data=data,
                                           allow_redirects=False) as resp:
                    location = resp.headers.get("Location")
                    if resp.status in REDIRECTS and location:
                        url = urljoin(str(resp.url), location)
                        params = {}
                        if resp.status == 303 or (resp.status in (301, 302) and method == "POST"):
                            method, data = "GET", None
                        if urlsplit(url).hostname != origin:
                            headers = {k: v for k, v in headers.items() if k.lower() not in CREDENTIAL_HEADERS}
                        continue
                    body = await resp.content.read(MAX_BODY + 1)
                    return Reply(resp.status, body, str(resp.url))
            except aiohttp.ClientError as exc:
                blocked = blocked_cause(exc)
                if blocked is not None:
                    raise blocked from None
                raise
        raise aiohttp.ClientError(f"more than {MAX_REDIRECTS} redirects")


def describe(exc: Any) -> str:
    return str(exc) or type(exc).__name__
