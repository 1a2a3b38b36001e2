"""Fetching a header's `mediaUrl` (size cap, timeout, expected type) before it is uploaded to the provider.

Outside development, hosts resolving to loopback, private or link-local addresses are refused
(SSRF: the URL comes from the customer); the check sits in the DNS resolver, so redirects are covered.
"""
from __future__ import annotations

import asyncio
import ipaddress
import mimetypes
import socket
from urllib.parse import urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver
from aiohttp.resolver import DefaultResolver

from leadline.config import Settings
from leadline.resolvers.providers.base import MediaUpload

# What the Cloud API accepts as a template header sample, per format.
ACCEPTED_TYPES = {
    "IMAGE": ("image/jpeg", "image/png"),
    "VIDEO": ("video/mp4", "video/3gpp"),
    "DOCUMENT": ("application/pdf",),
}
MAX_REDIRECTS = 3


class MediaFetchFailed(Exception):
    """The media could not be fetched; the message is safe to show the caller."""


class PublicOnlyResolver(AbstractResolver):
    """Resolves like the default resolver but drops non-public addresses."""

    def __init__(self) -> None:
        self._inner = DefaultResolver()

    async def resolve(self, host: str, port: int = 0, family: int = socket.AF_INET):
        results = [r for r in await self._inner.resolve(host, port, family)
                   if ipaddress.ip_address(r["host"]).is_global]
        if not results:
            raise OSError(f"{host} does not resolve to a public address")
        return results

    async def close(self) -> None:
        await self._inner.close()


async def fetch_media(settings: Settings, url: str, fmt: str, filename: str | None) -> MediaUpload:
    limit = settings.template_media_max_bytes
    timeout = aiohttp.ClientTimeout(total=settings.template_media_timeout)
    connector = None if settings.is_development else aiohttp.TCPConnector(resolver=PublicOnlyResolver())
    try:
        async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
            async with session.get(url, max_redirects=MAX_REDIRECTS) as resp:
                if resp.status != 200:
                    raise MediaFetchFailed(f"mediaUrl answered HTTP {resp.status}")
                if resp.content_length is not None and resp.content_length > limit:
                    raise MediaFetchFailed(f"mediaUrl is larger than {limit} bytes")
                data = bytearray()
                async for chunk in resp.content.iter_chunked(64 * 1024):
                    data.extend(chunk)
                    if len(data) > limit:
                        raise MediaFetchFailed(f"mediaUrl is larger than {limit} bytes")
                mime = resp.content_type
    except asyncio.TimeoutError:
        raise MediaFetchFailed(f"mediaUrl did not answer within {settings.template_media_timeout:g} s") from None
    except aiohttp.ClientError as exc:
        raise MediaFetchFailed(f"mediaUrl could not be fetched: {exc.__class__.__name__}") from None
    except OSError as exc:
        raise MediaFetchFailed(f"mediaUrl could not be fetched: {exc}") from None
    if mime not in ACCEPTED_TYPES[fmt]:
        raise MediaFetchFailed(f"a {fmt} header needs {' or '.join(ACCEPTED_TYPES[fmt])}, mediaUrl gave {mime}")
    if not data:
        raise MediaFetchFailed("mediaUrl gave an empty file")
    name = filename or _name_from(url, mime)
    return MediaUpload(bytes(data), mime, name)


def _name_from(url: str, mime: str) -> str:
    last = urlsplit(url).path.rsplit("/", 1)[-1]
    return last or f"header{mimetypes.guess_extension(mime) or ''}"
