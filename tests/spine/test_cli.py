"""`leadline up` and `leadline admin` as an operator uses them: real processes in a temporary directory."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from leadline.embedded import free_port

LEADLINE = [sys.executable, "-m", "leadline.cli"]


def _env() -> dict:
    env = dict(os.environ)
    for name in ("MONGODB_URL", "REDIS_URL"):
        env.pop(name, None)
    return env


def admin(cwd, *args: str) -> tuple[int, dict | None, str]:
    proc = subprocess.run([*LEADLINE, "admin", *args], cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=60)
    out = json.loads(proc.stdout) if proc.returncode == 0 else None
    return proc.returncode, out, proc.stderr


def get(url: str, key: str) -> tuple[int, dict]:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


class Up:
    def __init__(self, cwd) -> None:
        self.cwd = cwd
        self.port = free_port()
        self.proc = subprocess.Popen([*LEADLINE, "up", "--port", str(self.port), "--data-dir", ".leadline"],
                                     cwd=cwd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if "Leadline is up" in line:
                self.url = f"http://127.0.0.1:{self.port}"
                return
            if self.proc.poll() is not None:
                break
        raise RuntimeError("leadline up did not start")

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(60)


@pytest.fixture
def workdir(tmp_path):
    return tmp_path


def test_up_admin_and_restart_keep_data(workdir):
    up = Up(workdir)
    try:
        code, org, _ = admin(workdir, "create-org", "--name", "Acme", "--plan", "growth", "--timezone", "Asia/Kolkata")
        assert code == 0 and len(org["legacyKey"]) == 64 and len(org["orgId"]) == 24
        code, key, _ = admin(workdir, "create-key", "--org", org["orgId"], "--scopes", "billing:read,channels:read",
                             "--label", "ops")
        assert code == 0 and key["key"].startswith("sk_")
        code, chan, _ = admin(workdir, "connect-channel", "--org", org["orgId"], "--platform", "chatapp",
                              "--number", "+1 555 010 2030", "--business-name", "Acme")
        assert code == 0 and len(chan["channelId"]) == 24
        assert admin(workdir, "set-wallet", "--org", org["orgId"], "--balance", "20.5")[0] == 0
        assert get(f"{up.url}/v2.0/channels/status", key["key"])[0] == 200
        status, body = get(f"{up.url}/v2.0/account/wallet/balance", key["key"])
        assert (status, body["data"]["balance"]) == (200, 20.5)
        assert admin(workdir, "set-plan", "--org", org["orgId"], "--plan", "pro")[0] == 0
        assert get(f"{up.url}/v2.0/billing/plan", key["key"])[1]["data"]["plan"]["name"] == "Pro"
        assert admin(workdir, "set-allowed-origins", "--org", org["orgId"], "--origins", "https://a.example")[0] == 0
        assert admin(workdir, "set-org-active", "--org", org["orgId"], "--active", "false")[0] == 0
        assert get(f"{up.url}/v2.0/billing/plan", key["key"])[1]["code"] == "ORG_INACTIVE"
        assert admin(workdir, "set-org-active", "--org", org["orgId"], "--active", "true")[0] == 0
        code, revoked, _ = admin(workdir, "revoke-key", "--org", org["orgId"], "--key-id", key["keyId"])
        assert (code, revoked) == (0, {"keyId": key["keyId"], "revoked": True})
        assert get(f"{up.url}/v2.0/billing/plan", key["key"])[1]["code"] == "INVALID_API_KEY"
        # Operator mistakes: non-zero exit and a sentence on stderr, nothing on stdout.
        code, _, err = admin(workdir, "create-key", "--org", org["orgId"], "--scopes", "nope:read")
        assert code != 0 and "unknown scopes" in err
        code, _, err = admin(workdir, "set-plan", "--org", "123", "--plan", "pro")
        assert code != 0 and "organisation id" in err
    finally:
        assert up.stop() == 0
    assert not (workdir / ".leadline" / "stack.json").exists()

    again = Up(workdir)
    try:
        status, body = get(f"{again.url}/v2.0/billing/plan", org["legacyKey"])
        assert (status, body["data"]["plan"]["name"]) == (200, "Pro")
    finally:
        again.stop()


def test_admin_without_a_running_stack_says_so(workdir):
    code, _, err = admin(workdir, "create-org", "--name", "Acme")
    assert code != 0 and "leadline up" in err


def test_serve_finishes_in_flight_requests_on_sigterm(workdir, stack):
    """A slow provider keeps a channel-status request in flight while the server is asked to stop."""
    import asyncio
    import threading

    from aiohttp import web

    from leadline.database import connect_database
    from leadline.resolvers.auth.admin import create_org
    from leadline.resolvers.channels.admin import connect_channel

    async def slow_phone(request):
        await asyncio.sleep(2)
        return web.json_response({"verified_name": "Slow", "quality_rating": "GREEN", "status": "CONNECTED"})

    graph_port = free_port()
    loop = asyncio.new_event_loop()

    async def run_graph():
        app = web.Application()
        app.router.add_get("/{id}", slow_phone)
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", graph_port).start()

    loop.run_until_complete(run_graph())
    threading.Thread(target=loop.run_forever, daemon=True).start()

    async def seed():
        mongo = await connect_database(stack.database.url, "graceful")
        org = await create_org("Acme", plan="business")
        await connect_channel(org["orgId"], "chatapp", "15550102030", provider="meta", provider_id="p1",
                              access_token="t")
        await mongo.close()
        return org

    org = asyncio.run(seed())
    port = free_port()
    env = {**_env(), "MONGODB_URL": stack.database.url, "REDIS_URL": stack.redis.url, "MONGODB_DATABASE": "graceful",
           "CHATAPP_GRAPH_URL": f"http://127.0.0.1:{graph_port}"}
    proc = subprocess.Popen([*LEADLINE, "serve", "--port", str(port)], cwd=workdir, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert "listening" in proc.stdout.readline()
        result = {}
        thread = threading.Thread(target=lambda: result.update(
            zip(("status", "body"), get(f"http://127.0.0.1:{port}/v2.0/channels/status", org["legacyKey"]))))
        thread.start()
        time.sleep(0.7)  # the request is now waiting on the slow provider
        proc.send_signal(signal.SIGTERM)
        thread.join(15)
        assert result["status"] == 200
        assert result["body"]["data"]["chatapp"][0]["live"]["phoneNumber"]["verified_name"] == "Slow"
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        loop.call_soon_threadsafe(loop.stop)
