"""`leadline up` as a crash leaves it: real processes killed with SIGKILL, then what the stack does.

- a dead worker, database or Redis is logged and restarted, and /health says what is missing meanwhile;
- killing `leadline up` alone takes its children with it, a stale child left over is ended by the next
  start, and a start that fails says why in one sentence with the log to read;
- a write answered 2xx survives killing the whole stack right after the answer;
- every database command has a time budget.

Processes are found through /proc (children of the `leadline up` process, by command line), not
through anything the implementation records, so the tests see what an operator would.
"""
from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from bson import ObjectId

from leadline.embedded import free_port

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

LEADLINE = [sys.executable, "-m", "leadline.cli"]
APP_SECRET = "robustness-secret"
BRAND = "15550001111"
PHONE = "14155552671"
ROLES = ("database", "redis", "worker")


# --- processes --------------------------------------------------------------------------------
def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process, None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0], int(fields[1])


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _role(cmd: str) -> str | None:
    if "-m secantus" in cmd:
        return "database"
    if "redis-server" in cmd:
        return "redis"
    if "leadline.cli worker" in cmd:
        return "worker"
    return None


def children(pid: int, *, zombies: bool = False) -> dict[str, int]:
    """The children of `pid` by role (zombies only when asked: a dead child nobody waited for)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        stat = _stat(int(entry))
        if stat is None or stat[1] != pid or (stat[0] == "Z") != zombies:
            continue
        role = _role(_cmdline(int(entry)))
        if role:
            found[role] = int(entry)
    return found


def running(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


def wait_for(check, what: str, timeout: float, every: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("MONGODB_URL", "REDIS_URL")}
    env.update(LEADLINE_LOG_LEVEL="INFO", CHATAPP_APP_SECRET=APP_SECRET, **extra)
    return env


class Up:
    """A real `leadline up` in `cwd` (data in cwd/.leadline), its output in files there."""

    def __init__(self, cwd: Path, *, port: int | None = None, wait: bool = True, **env: str) -> None:
        self.cwd = cwd
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data_dir = cwd / ".leadline"
        runs = len(list(cwd.glob("up-*.out")))
        self.out_path, self.err_path = cwd / f"up-{runs}.out", cwd / f"up-{runs}.err"
        self.proc = subprocess.Popen(
            [*LEADLINE, "up", "--port", str(self.port), "--mcp-port", str(free_port()), "--data-dir", ".leadline"],
            cwd=cwd, env=_env(**env), stdout=open(self.out_path, "wb"), stderr=open(self.err_path, "wb"),
            start_new_session=True)
        self.seen: set[int] = {self.proc.pid}
        if wait:
            self.wait_ready()

    @property
    def out(self) -> str:
        return self.out_path.read_text(errors="replace")

    @property
    def err(self) -> str:
        return self.err_path.read_text(errors="replace")

    def wait_ready(self, timeout: float = 120) -> None:
        def ready():
            if self.proc.poll() is not None:
                raise AssertionError(f"leadline up exited with {self.proc.returncode}:\n{self.out}\n{self.err[-3000:]}")
            return "Leadline is up" in self.out
        wait_for(ready, "leadline up to be ready", timeout)
        self.children()

    def children(self) -> dict[str, int]:
        found = children(self.proc.pid)
        self.seen.update(found.values())
        return found

    def health(self) -> tuple[int, dict]:
        try:
            with urllib.request.urlopen(f"{self.url}/health", timeout=10) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())
        except (urllib.error.URLError, OSError) as exc:
            return 0, {"error": str(exc)}

    def wait_healthy(self, timeout: float = 90) -> None:
        wait_for(lambda: self.health() == (200, {"status": "ok"}), "/health to answer ok", timeout, every=0.2)

    def stop(self) -> int | None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                pass
        self.kill_leftovers()
        return self.proc.returncode

    def kill_leftovers(self) -> None:
        """SIGKILL whatever this run started that still runs (only processes seen as its children)."""
        for pid in self.seen:
            if running(pid) and (pid == self.proc.pid or _role(_cmdline(pid))):
                os.kill(pid, signal.SIGKILL)
        if self.proc.poll() is None:
            self.proc.wait(10)


def request(method: str, url: str, key: str | None = None, body=None, headers: dict | None = None):
    data = body if isinstance(body, bytes) else None if body is None else json.dumps(body).encode()
    hdrs = {"Content-Type": "application/json", **(headers or {})}
    if key:
        hdrs["Authorization"] = f"Bearer {key}"
    req = urllib.request.Request(url, data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def admin(cwd: Path, *args: str) -> dict:
    proc = subprocess.run([*LEADLINE, "admin", "--data-dir", ".leadline", *args], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture
def up_factory(tmp_path):
    started: list[Up] = []

    def make(**kw) -> Up:
        up = Up(tmp_path, **kw)
        started.append(up)
        return up

    yield make
    for up in started:
        up.stop()


# --- item 5: supervision ---------------------------------------------------------------------
@pytest.mark.parametrize("role", ROLES)
def test_a_killed_child_is_logged_restarted_and_reported_by_health(up_factory, tmp_path, role):
    up = up_factory()
    up.wait_healthy()
    org = admin(tmp_path, "create-org", "--name", "Acme", "--plan", "growth")
    victim = up.children()[role]

    os.kill(victim, signal.SIGKILL)

    def degraded():
        status, body = up.health()
        return body if status == 503 else None

    body = wait_for(degraded, "/health to answer 503", 30, every=0.05)
    assert body["status"] == "degraded" and role in body["missing"], body

    up.wait_healthy()
    assert not running(victim) and victim not in children(up.proc.pid, zombies=True).values()
    replacement = up.children()[role]
    assert replacement != victim and running(replacement)
    events = [json.loads(line) for line in up.err.splitlines() if line.startswith("{")]
    assert any(e.get("child") == role and "restart" in e["msg"] for e in events), up.err[-3000:]
    # The stack works again with the replacement (the data survived a database or Redis restart).
    status, body = request("GET", f"{up.url}/v2.0/billing/plan", org["legacyKey"])
    assert (status, body["data"]["plan"]["name"]) == (200, "Growth")
    assert up.proc.poll() is None


# --- item 6: stale processes -----------------------------------------------------------------
def test_killing_up_takes_its_children_along_and_the_next_start_succeeds(up_factory, tmp_path):
    up = up_factory()
    org = admin(tmp_path, "create-org", "--name", "Acme", "--plan", "pro")
    kids = up.children()
    assert set(kids) == set(ROLES)

    os.kill(up.proc.pid, signal.SIGKILL)
    up.proc.wait(10)
    wait_for(lambda: not any(running(pid) for pid in kids.values()), "the children to end with their parent", 60)

    again = up_factory()
    again.wait_healthy()
    status, body = request("GET", f"{again.url}/v2.0/billing/plan", org["legacyKey"])
    assert (status, body["data"]["plan"]["name"]) == (200, "Pro")
    assert "Traceback" not in again.err


def test_a_stale_child_that_outlived_its_parent_is_ended_by_the_next_start(up_factory, tmp_path):
    """A stopped database cannot act on its parent's death: it keeps the data directory's lock."""
    up = up_factory()
    org = admin(tmp_path, "create-org", "--name", "Acme", "--plan", "pro")
    database = up.children()["database"]
    os.kill(database, signal.SIGSTOP)
    os.kill(up.proc.pid, signal.SIGKILL)
    up.proc.wait(10)
    assert running(database)  # the orphan still holds the database

    again = up_factory()
    assert not running(database)
    assert f"Ended the database (pid {database}) a previous run left running." in again.out
    again.wait_healthy()
    status, body = request("GET", f"{again.url}/v2.0/billing/plan", org["legacyKey"])
    assert (status, body["data"]["plan"]["name"]) == (200, "Pro")
    assert "Traceback" not in again.err


def _one_sentence(up: Up) -> str:
    """The failure's sentence: the only line that is not a JSON log line; no traceback anywhere."""
    code = up.proc.wait(120)
    assert code != 0
    assert "Traceback" not in up.out + up.err, up.err
    lines = [line for line in up.err.splitlines() if line.strip() and not line.startswith("{")]
    assert len(lines) == 1 and lines[0].startswith("leadline up: "), up.err
    return lines[0]


def test_a_start_on_a_database_held_by_another_process_says_why_in_one_sentence(up_factory, tmp_path):
    db_dir = tmp_path / ".leadline" / "db"
    db_dir.mkdir(parents=True)
    port = free_port()
    holder = subprocess.Popen([sys.executable, "-m", "secantus", "--host", "127.0.0.1", "--port", str(port),
                               "--storage-path", str(db_dir)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: _connects(port), "the other process to open the database", 60)
        up = up_factory(wait=False)
        sentence = _one_sentence(up)
        assert "database" in sentence and "another process" in sentence, sentence
        assert str((tmp_path / ".leadline" / "logs" / "database.log").resolve()) in sentence
        assert not children(up.proc.pid)
    finally:
        holder.kill()
        holder.wait(10)
    # Nothing of the failed start is left running: the next start works.
    up_factory().wait_healthy()


def test_a_second_start_on_a_data_directory_in_use_is_refused_in_one_sentence(up_factory):
    first = up_factory()
    second = up_factory(wait=False)
    sentence = _one_sentence(second)
    assert f"pid {first.proc.pid}" in sentence and "already running" in sentence, sentence
    first.wait_healthy()  # untouched
    assert set(first.children()) == set(ROLES)


def test_a_start_whose_port_is_taken_says_so_in_one_sentence(up_factory, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        up = up_factory(port=port, wait=False)
        sentence = _one_sentence(up)
    assert str(port) in sentence and "address already in use" in sentence.lower(), sentence
    up_factory().wait_healthy()


# --- item 7: acknowledged writes -------------------------------------------------------------
async def _seed_template(mongodb_url: str, org_id: str) -> None:
    from leadline.database import connect_database
    from leadline.models.templates import MessageTemplate

    mongo = await connect_database(mongodb_url, "leadline")
    try:
        await MessageTemplate.new(ObjectId(org_id), name="order_update", template_id="1689556908129832",
                                  language="en", category="UTILITY", status="APPROVED", brand_number=BRAND,
                                  components=[{"type": "BODY", "text": "Hi {{1}}, your order {{2}} ships today."}]
                                  ).insert()
    finally:
        await mongo.close()


def _inbound(wamid: str) -> bytes:
    value = {"messaging_product": "whatsapp",
             "metadata": {"display_phone_number": BRAND, "phone_number_id": BRAND},
             "contacts": [{"profile": {"name": "Bob"}, "wa_id": "14155550000"}],
             "messages": [{"from": "14155550000", "id": wamid, "timestamp": str(int(time.time())), "type": "text",
                           "text": {"body": "hello"}}]}
    return json.dumps({"object": "whatsapp_business_account",
                       "entry": [{"id": "1", "changes": [{"field": "messages", "value": value}]}]}).encode()


def _messages(mongodb_url: str, org_id: str, filt: dict) -> list[dict]:
    from pymongo import MongoClient

    with MongoClient(mongodb_url) as client:
        return list(client["leadline"]["chat_messages"].find({"org_id": ObjectId(org_id), **filt}))


def test_writes_answered_2xx_survive_killing_the_whole_stack(up_factory, tmp_path):
    from leadline.resolvers.webhooks.signature import sign

    # A change a killed worker had claimed is taken over after this (the default is 30 s).
    up = up_factory(LEADLINE_INGEST_STALE_SECONDS="2")
    org = admin(tmp_path, "create-org", "--name", "Acme", "--plan", "business")
    key = admin(tmp_path, "create-key", "--org", org["orgId"], "--scopes",
                "contacts:read,contacts:write,messages:send,messages:read")["key"]
    admin(tmp_path, "connect-channel", "--org", org["orgId"], "--platform", "chatapp", "--number", BRAND,
          "--business-name", "Acme")
    state = json.loads((up.data_dir / "stack.json").read_text())
    asyncio.run(_seed_template(state["mongodb_url"], org["orgId"]))
    up.wait_healthy()
    kids = up.children()

    at = (datetime.now(timezone.utc) + timedelta(seconds=4)).isoformat().replace("+00:00", "Z")
    send = {"to": PHONE, "brandNumber": BRAND, "templateId": "1689556908129832", "bodyParameters": ["Ann", "A-17"],
            "scheduledAt": at}
    raw = _inbound("wamid.robustness.1")
    status, contact = request("POST", f"{up.url}/v2.0/contacts", key, {"phone": "+91 98765 43210",
                                                                        "contactName": "Durable"})
    assert status == 201, contact
    status, scheduled = request("POST", f"{up.url}/v2.0/chatapp/send", key, send)
    assert status == 201, scheduled
    status, _ = request("POST", f"{up.url}/webhooks/chatapp", None, raw,
                        {"X-Hub-Signature-256": sign(APP_SECRET, raw)})
    assert status == 200
    # The whole stack dies at once, right after the answers.
    for pid in [*kids.values(), up.proc.pid]:
        os.kill(pid, signal.SIGKILL)
    up.proc.wait(10)
    wait_for(lambda: not any(running(pid) for pid in kids.values()), "every process of the stack to be gone", 30)

    again = up_factory(LEADLINE_INGEST_STALE_SECONDS="2")
    status, found = request("POST", f"{again.url}/v2.0/contacts/phone", key, {"phone": "+91 98765 43210"})
    assert status == 200 and found["data"]["contactName"] == "Durable", found
    schedule_id = scheduled["data"]["scheduleId"]

    def sent():
        status, body = request("GET", f"{again.url}/v2.0/scheduled-messages/{schedule_id}", key)
        assert status == 200, body
        return body["data"] if body["data"]["status"] not in ("scheduled", "sending") else None

    row = wait_for(sent, "the scheduled message to be sent", 90, every=0.3)
    assert (row["status"], row["error"]) == ("sent", None), row
    state = json.loads((again.data_dir / "stack.json").read_text())
    # Sent exactly once: one outbound chat message, the one the schedule's claim named.
    outbound = _messages(state["mongodb_url"], org["orgId"], {"schedule_id": ObjectId(schedule_id)})
    assert [(str(m["_id"]), m["direction"]) for m in outbound] == [(row["messageId"], "outbound")]
    inbound = wait_for(lambda: _messages(state["mongodb_url"], org["orgId"], {"direction": "inbound"}),
                       "the acknowledged webhook's message to be stored", 60, every=0.3)
    assert [m["cmid"] for m in inbound] == ["wamid.robustness.1"]


# --- database time budget --------------------------------------------------------------------
def test_every_database_command_has_a_time_budget(monkeypatch):
    from pymongo.errors import PyMongoError

    from leadline.config import Settings
    from leadline.database import client_options, connect_database

    monkeypatch.setenv("LEADLINE_DB_TIMEOUT_MS", "400")
    assert Settings.from_env().db_timeout_ms == 400
    assert Settings().db_timeout_ms == 10_000

    port = free_port()
    db = subprocess.Popen([sys.executable, "-m", "secantus", "--host", "127.0.0.1", "--port", str(port),
                           "--storage-path", ":memory:", "--enable-test-commands"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"mongodb://127.0.0.1:{port}/?directConnection=true&retryWrites=false&appName=budget"

    async def run() -> tuple[float, PyMongoError | None, dict]:
        mongo = await connect_database(url, "budget", timeout_ms=400)
        try:
            await mongo.admin.command("configureFailPoint", "failCommand", mode={"times": 1}, data={
                "failCommands": ["find"], "blockConnection": True, "blockTimeMS": 3000, "appName": "budget"})
            started = time.monotonic()
            try:
                await mongo["budget"]["things"].find_one({})
                error = None
            except PyMongoError as exc:
                error = exc
            return time.monotonic() - started, error, mongo.write_concern.document
        finally:
            await mongo.close()

    try:
        wait_for(lambda: _connects(port), "the database", 60)
        elapsed, error, concern = asyncio.run(run())
    finally:
        db.kill()
        db.wait(10)
    assert error is not None and getattr(error, "timeout", False), error
    assert elapsed < 2.0
    assert concern == {"j": True}
    # A deployment that sets its own write concern in MONGODB_URL keeps it.
    assert "journal" not in client_options("mongodb://db:27017/?w=majority", 10_000)
    assert client_options("mongodb://db:27017/", 0)["timeoutMS"] is None  # 0: no budget


def _connects(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False
