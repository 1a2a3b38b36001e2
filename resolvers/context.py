"""The typed per-request context every resolver receives, and the process-wide services it points to."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from bson import ObjectId

from leadline.resolvers.auth.snapshots import KeySnapshot, OrgSnapshot
from leadline.resolvers.errors import ApiError
from leadline.resolvers.org_cache import OrgCache
from leadline.resolvers.streams import WorkStream

if TYPE_CHECKING:
    from arq.connections import ArqRedis
    from redis.asyncio import Redis

    from leadline.config import Settings
    from leadline.resolvers.auth.cache import KeyCache
    from leadline.resolvers.auth.gate import RateGate
    from leadline.resolvers.providers.base import ProviderRegistry


@dataclass
class Services:
    """Long-lived clients shared by every request, job and test of one process."""

    settings: "Settings"
    redis: "Redis"
    key_cache: "KeyCache"
    gate: "RateGate"
    providers: "ProviderRegistry"
    org_cache: OrgCache = field(default_factory=OrgCache)
    arq: "ArqRedis | None" = None
    _streams: dict[str, WorkStream] = field(default_factory=dict)

    def rkey(self, *parts: object) -> str:
        """A Redis key in this deployment's namespace."""
        return ":".join([self.settings.redis_prefix, *map(str, parts)])

    def stream(self, name: str, **options: Any) -> WorkStream:
        """The durable work queue `name` (resolvers/streams.py), one object per process."""
        if name not in self._streams:
            self._streams[name] = WorkStream(self.redis, self.rkey("stream", name), name=name, **options)
        return self._streams[name]


@dataclass
class RequestContext:
    services: Services
    org: OrgSnapshot | None
    key: KeySnapshot | None
    request_id: str | None = None
    # The organisation's token as this request's rate-limit call returned it (resolvers/org_cache.py).
    org_token: str | None = None
    # Per-request DataLoaders, created on first use (see `loader`).
    _loaders: dict[str, Any] = field(default_factory=dict)

    @property
    def org_id(self) -> ObjectId:
        if self.org is None:
            raise ApiError("ORG_ID_MISSING", "The organisation of this request could not be resolved.")
        return self.org.id

    async def cached(self, key: Any, load: Callable[[], Any]) -> Any:
        """The organisation's slow-changing `key` (an account, a template), read once per token."""
        return await self.services.org_cache.get(self.org_id, self.org_token, key, load)

    def loader(self, name: str, factory: Callable[[], Any]) -> Any:
        if name not in self._loaders:
            self._loaders[name] = factory()
        return self._loaders[name]

    @classmethod
    def system(cls, services: Services, org: OrgSnapshot) -> "RequestContext":
        """A full-access context for jobs acting on behalf of an organisation."""
        key = KeySnapshot(id=ObjectId("0" * 24), kind="legacy", scopes=frozenset({"*"}), label="system")
        return cls(services=services, org=org, key=key)
