"""Which outside URLs the service may call (OWASP API7, SSRF), for customer webhook endpoints and
function tools alike: checked when a URL is saved and again at every connection, so a name that later
resolves to an internal address (DNS rebinding) is refused too.

Outside development a URL is `https` and its host never a private, loopback, link-local, multicast,
reserved or unspecified address: an IP literal is checked as written, a name by resolving it (when
saved) and by the resolver the delivery's connections use. Development allows `http` and loopback.
"""
from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

MAX_URL = 2048


class BlockedAddress(OSError):
    """The destination is internal (or not an acceptable URL) for this deployment."""


def _blocked(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_reserved
            or ip.is_unspecified)


def url_problem(url: str, *, development: bool) -> str | None:
    """Why the URL cannot be an endpoint (its form only; names are resolved by `check_resolves`)."""
    if len(url) > MAX_URL:
        return f"the URL is longer than {MAX_URL} characters"
    try:
        parts = urlsplit(url)
        host, _port = parts.hostname, parts.port
    except ValueError:
        return "the URL is malformed"
    allowed = ("http", "https") if development else ("https",)
    if parts.scheme not in allowed:
        return "the URL must use https" if not development else "the URL must use http or https"
    if not host:
        return "the URL has no host"
    if parts.username or parts.password:
        return "the URL must not carry credentials"
    if any(c.isspace() for c in url):
        return "the URL must not contain spaces"
    if development:
        return None
    try:
        check_host(host)
    except BlockedAddress as exc:
        return str(exc)
    return None


def check_host(host: str | None) -> None:
    """Refuses an internal IP literal or `localhost` (names are checked where they are resolved)."""
    if not host:
        raise BlockedAddress("the URL has no host")
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        lowered = host.lower().rstrip(".")
        if lowered == "localhost" or lowered.endswith(".localhost"):
            raise BlockedAddress(f"{host} is a loopback address") from None
        return
    if _blocked(ip):
        raise BlockedAddress(f"{host} is a private, loopback or link-local address")


async def check_resolves(host: str) -> str | None:
    """Why a host name is refused when saved: it does not resolve, or resolves to an internal address."""
    try:
        ipaddress.ip_address(host.strip("[]"))
        return None  # literals were checked by url_problem
    except ValueError:
        pass
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return f"{host} does not resolve"
    for info in infos:
        if _blocked(ipaddress.ip_address(info[4][0])):
            return f"{host} resolves to a private, loopback or link-local address"
    return None


class GuardedResolver(AbstractResolver):
    """aiohttp's resolver, refusing internal addresses (each connection resolves afresh)."""

    def __init__(self) -> None:
        self._inner = DefaultResolver()

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
                      ) -> list[ResolveResult]:
        results = await self._inner.resolve(host, port, family)
        for result in results:
            if _blocked(ipaddress.ip_address(result["host"])):
                raise BlockedAddress(f"{host} resolves to a private, loopback or link-local address")
        return results

    async def close(self) -> None:
        await self._inner.close()


def blocked_cause(exc: BaseException | None) -> BlockedAddress | None:
    """The SSRF refusal behind an aiohttp connection error, if that is what it is."""
    seen = 0
    while exc is not None and seen < 6:
        if isinstance(exc, BlockedAddress):
            return exc
        exc = getattr(exc, "os_error", None) or exc.__cause__ or exc.__context__
        seen += 1
    return None
