"""Outbound HTTP for function tools, with the SSRF guard.

Outside development a call never reaches a private, loopback, link-local, multicast or reserved
address: an IP-literal URL is refused before connecting, and host names are checked by the resolver
the connection itself uses (so a name cannot resolve to a public address when checked and a private
one when connected). Redirects are followed by hand (at most 5), each hop checked the same way;
credentials are not carried to another host.
"""
from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

MAX_REDIRECTS = 5
MAX_BODY = 64 * 1024
REDIRECTS = (301, 302, 303, 307, 308)
CREDENTIAL_HEADERS = ("authorization", "x-leadline-signature")


class BlockedAddress(OSError):
    """The destination is a private or otherwise internal address."""


def _blocked(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_reserved
            or ip.is_unspecified)


def check_host(host: str | None) -> None:
    """Refuses an IP literal that is internal (names are checked by GuardedResolver)."""
    if not host:
        raise BlockedAddress("the URL has no host")
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        if host.lower() == "localhost" or host.lower().endswith(".localhost"):
            raise BlockedAddress(f"{host} is a loopback address") from None
        return
    if _blocked(ip):
        raise BlockedAddress(f"{host} is a private or internal address")


class GuardedResolver(AbstractResolver):
    def __init__(self) -> None:
        self._inner = DefaultResolver()

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
                      ) -> list[ResolveResult]:
        results = await self._inner.resolve(host, port, family)
        for result in results:
            if _blocked(ipaddress.ip_address(result["host"])):
                raise BlockedAddress(f"{host} resolves to a private or internal address")
        return results

    async def close(self) -> None:
        await self._inner.close()


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    url: str


def blocked_cause(exc: BaseException) -> BlockedAddress | None:
    """The SSRF refusal behind an aiohttp connection error, if that is what it is."""
    seen = 0
    while exc is not None and seen < 5:
        if isinstance(exc, BlockedAddress):
            return exc
        exc = getattr(exc, "os_error", None) or exc.__cause__ or exc.__context__
        seen += 1
    return None


async def request(method: str, url: str, *, headers: dict[str, str], params: dict[str, str], data: bytes | None,
                  timeout: float, allow_private: bool) -> Reply:
    """One call (redirects followed); raises BlockedAddress, asyncio.TimeoutError or aiohttp.ClientError."""
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
