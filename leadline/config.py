"""Service configuration, read from the environment once at start-up."""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace


def _env_list(name: str, default: str = "") -> tuple[str, ...]:
    raw = os.environ.get(name, default)
    return tuple(part.strip() for part in raw.split(",") if part.strip())


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    return float(raw) if raw else default


@dataclass(frozen=True)
class Settings:
    mongodb_url: str | None = None
    database_name: str = "leadline"
    redis_url: str | None = None
    # Key prefix for everything this service keeps in Redis (tests use one per test).
    redis_prefix: str = "leadline"
    host: str = "127.0.0.1"
    port: int = 8080
    mcp_port: int = 8081
    data_dir: str = ".leadline"
    environment: str = "development"
    cors_origins: tuple[str, ...] = ("*",)
    # Provider adapter used for channels without their own credentials.
    provider: str = "sandbox"
    chatapp_graph_url: str = "https://graph.facebook.com/v21.0"
    chatapp_app_secret: str = ""
    chatapp_verify_token: str = ""
    # How long the key cache trusts an entry without Redis telling it otherwise.
    key_cache_seconds: float = 300.0
    shutdown_timeout: float = 15.0
    arq_queue_name: str = "leadline:queue"
    # Templates: the sandbox's simulated review delay, and the limits on fetching a header's mediaUrl.
    sandbox_template_review_seconds: float = 10.0
    template_media_max_bytes: int = 16 * 1024 * 1024
    template_media_timeout: float = 10.0
    # Messaging: when the sandbox reports sent, delivered, read after a send (seconds, cumulative);
    # how long GET /chatapp/message/status?retry=true waits; when a dispatch claim counts as abandoned.
    sandbox_status_delays: tuple[float, ...] = (0.3, 0.6, 0.9)
    message_status_retry_seconds: float = 5.0
    schedule_claim_stale_seconds: float = 300.0
    # Chats: base delay before a status naming a message not stored yet is offered again (grows per try).
    chatapp_webhook_retry_seconds: float = 2.0
    # Ingestion: queued webhook changes a worker takes at once, and when a dead worker's claimed
    # changes are taken over by another.
    ingest_batch: int = 500
    ingest_stale_seconds: float = 30.0
    # Status-only webhook changes let into ingestion per second per worker while a campaign is sending
    # (0: no limit), a campaign chunk's rows and events counting as one per message; inbound messages
    # are never held back (resolvers/webhooks/dispatch.py).
    ingest_bulk_while_sending: float = 100.0
    # arq: a worker starts at most max_jobs jobs per poll and polls every poll_delay seconds, so it
    # runs at most max_jobs / poll_delay jobs per second (arq's defaults, 10 and 0.5 s, cap it at 20/s).
    worker_max_jobs: int = 50
    worker_poll_delay: float = 0.02
    # Campaigns: how long a worker holds a claimed chunk before another takes it over.
    campaign_lease_seconds: float = 60.0
    # A campaign paused by the messaging tier looks again this often (the tier's window rolls).
    campaign_pause_recheck_seconds: float = 60.0
    # A recipient marked as being sent this long ago with no provider answer recorded is taken for lost
    # with its worker (`INTERRUPTED`); it bounds one group's provider calls (8 s timeout, two rounds).
    campaign_attempt_deadline_seconds: float = 30.0
    # Every database command's time budget (pymongo's timeoutMS; 0: none).
    db_timeout_ms: int = 10_000
    # A running worker refreshes a heartbeat in Redis this often (it expires after three periods);
    # with health_requires_worker, /health reports the worker missing without one (`leadline up` sets it).
    worker_heartbeat_seconds: float = 2.0
    health_requires_worker: bool = False
    # Outgoing webhooks (docs/events.md): each attempt's time limit; how long a dead worker's claimed
    # deliveries wait before another takes them (a live worker renews its claims); attempts at once per
    # endpoint and worker.
    webhook_timeout_seconds: float = 15.0
    webhook_lease_seconds: float = 30.0
    webhook_endpoint_concurrency: int = 8
    extra: dict = field(default_factory=dict)
    # Assistants and tools: the key(s) stored secrets are encrypted with, comma-separated (the first encrypts,
    # every one decrypts). Required in production; development generates one (resolvers/secrets.py).
    secret_key: str = field(default="", repr=False)

    @property
    def is_development(self) -> bool:
        return self.environment != "production"

    @classmethod
    def from_env(cls, **overrides) -> "Settings":
        settings = cls(
            mongodb_url=os.environ.get("MONGODB_URL") or None,
            database_name=os.environ.get("MONGODB_DATABASE", "leadline"),
            redis_url=os.environ.get("REDIS_URL") or None,
            redis_prefix=os.environ.get("LEADLINE_REDIS_PREFIX", "leadline"),
            host=os.environ.get("LEADLINE_HOST", "127.0.0.1"),
            port=int(os.environ.get("LEADLINE_PORT", "8080")),
            mcp_port=int(os.environ.get("LEADLINE_MCP_PORT", "8081")),
            data_dir=os.environ.get("LEADLINE_DATA_DIR", ".leadline"),
            environment=os.environ.get("LEADLINE_ENV", "development"),
            cors_origins=_env_list("LEADLINE_CORS_ORIGINS", "*"),
            provider=os.environ.get("LEADLINE_PROVIDER", "sandbox"),
            chatapp_graph_url=os.environ.get("CHATAPP_GRAPH_URL", cls.chatapp_graph_url),
            chatapp_app_secret=os.environ.get("CHATAPP_APP_SECRET", ""),
            chatapp_verify_token=os.environ.get("CHATAPP_VERIFY_TOKEN", ""),
            key_cache_seconds=_env_float("LEADLINE_KEY_CACHE_SECONDS", 300.0),
            shutdown_timeout=_env_float("LEADLINE_SHUTDOWN_TIMEOUT", 15.0),
            sandbox_template_review_seconds=_env_float("LEADLINE_SANDBOX_TEMPLATE_REVIEW_SECONDS", 10.0),
            template_media_max_bytes=int(os.environ.get("LEADLINE_TEMPLATE_MEDIA_MAX_BYTES", 16 * 1024 * 1024)),
            template_media_timeout=_env_float("LEADLINE_TEMPLATE_MEDIA_TIMEOUT", 10.0),
            sandbox_status_delays=tuple(float(x) for x in _env_list("LEADLINE_SANDBOX_STATUS_DELAYS", "0.3,0.6,0.9")),
            message_status_retry_seconds=_env_float("LEADLINE_MESSAGE_STATUS_RETRY_SECONDS", 5.0),
            schedule_claim_stale_seconds=_env_float("LEADLINE_SCHEDULE_CLAIM_STALE_SECONDS", 300.0),
            chatapp_webhook_retry_seconds=_env_float("LEADLINE_CHATAPP_WEBHOOK_RETRY_SECONDS", 2.0),
            ingest_batch=int(os.environ.get("LEADLINE_INGEST_BATCH", "500")),
            ingest_stale_seconds=_env_float("LEADLINE_INGEST_STALE_SECONDS", 30.0),
            ingest_bulk_while_sending=_env_float("LEADLINE_INGEST_BULK_WHILE_SENDING", 100.0),
            worker_max_jobs=int(os.environ.get("LEADLINE_WORKER_MAX_JOBS", "50")),
            worker_poll_delay=_env_float("LEADLINE_WORKER_POLL_DELAY", 0.02),
            campaign_lease_seconds=_env_float("LEADLINE_CAMPAIGN_LEASE_SECONDS", 60.0),
            campaign_pause_recheck_seconds=_env_float("LEADLINE_CAMPAIGN_PAUSE_RECHECK_SECONDS", 60.0),
            campaign_attempt_deadline_seconds=_env_float("LEADLINE_CAMPAIGN_ATTEMPT_DEADLINE_SECONDS", 30.0),
            db_timeout_ms=int(os.environ.get("LEADLINE_DB_TIMEOUT_MS", "10000")),
            worker_heartbeat_seconds=_env_float("LEADLINE_WORKER_HEARTBEAT_SECONDS", 2.0),
            health_requires_worker=os.environ.get("LEADLINE_HEALTH_REQUIRES_WORKER", "").strip().lower()
            in ("1", "true", "yes"),
            secret_key=os.environ.get("LEADLINE_SECRET_KEY", ""),
            webhook_timeout_seconds=_env_float("LEADLINE_WEBHOOK_TIMEOUT_SECONDS", 15.0),
            webhook_lease_seconds=_env_float("LEADLINE_WEBHOOK_LEASE_SECONDS", 30.0),
            webhook_endpoint_concurrency=int(os.environ.get("LEADLINE_WEBHOOK_ENDPOINT_CONCURRENCY", "8")),
        )
        return replace(settings, **overrides) if overrides else settings
