"""`leadline admin add-agent`: defaults, validation, unique email per organisation, the max_agents seat
cap (invited agents hold seats too) and `usage.over` after a plan change; one run of the real command."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from leadline.resolvers.auth.admin import AdminError
from leadline.resolvers.inbox.agents import add_agent
from tests.helpers import make_tenant
from tests.inbox.support import agent


async def test_defaults_and_unique_email_per_organisation(api, tenant, key, client):
    created = await add_agent(tenant.org_id, "Ann", "ann@example.com")
    assert list(created) == ["agentId"]
    data = (await api.get("/v2.0/agents", key)).body["data"]
    assert data[0]["agentId"] == created["agentId"]
    assert (data[0]["role"], data[0]["status"]) == ("agent", "active")
    with pytest.raises(AdminError, match="already has an agent with email ANN@example.com"):
        await add_agent(tenant.org_id, "Ann again", "ANN@example.com")
    other = await make_tenant(client, name="Other")
    await add_agent(other.org_id, "Ann", "ann@example.com")  # another organisation's agent may share it


@pytest.mark.parametrize("args, message", [
    (("", "a@example.com"), "needs a name"),
    (("Ann", "not-an-email"), "is not an email address"),
    (("Ann", "a@example.com", "boss"), "unknown role 'boss'"),
    (("Ann", "a@example.com", "agent", "away"), "unknown status 'away'"),
])
async def test_bad_values_are_refused_with_a_sentence(tenant, args, message):
    with pytest.raises(AdminError, match=message):
        await add_agent(tenant.org_id, *args)


async def test_the_seat_cap_names_max_agents(api, tenant, key):
    await tenant.set_plan("growth")  # max_agents 10
    for i in range(9):
        await agent(tenant, f"A{i}")
    await agent(tenant, "Invited", status="invited")  # invited agents hold a seat
    with pytest.raises(AdminError, match=r"uses 10 of its 10 seats \(max_agents on the Growth plan\)"):
        await agent(tenant, "Eleventh")
    usage = (await api.get("/v2.0/agents", key)).body["usage"]
    assert usage == {"maxAgents": 10, "agentCount": 10, "unlimited": False, "over": False, "behavior": "block_new"}
    plan = (await api.get("/v2.0/billing/plan", tenant.legacy_key)).body["data"]["limits"]["max_agents"]
    assert plan == {"limit": 10, "used": 10, "remaining": 0}


async def test_over_after_a_downgrade(api, tenant, key):
    for i in range(12):
        await agent(tenant, f"A{i}")
    await tenant.set_plan("growth")
    usage = (await api.get("/v2.0/agents", key)).body["usage"]
    assert usage == {"maxAgents": 10, "agentCount": 12, "unlimited": False, "over": True, "behavior": "block_new"}
    with pytest.raises(AdminError, match="max_agents"):
        await agent(tenant, "New")
    assert len((await api.get("/v2.0/agents", key)).body["data"]) == 12


def _admin(settings, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MONGODB_URL": settings.mongodb_url, "MONGODB_DATABASE": settings.database_name,
           "REDIS_URL": settings.redis_url, "LEADLINE_REDIS_PREFIX": settings.redis_prefix}
    return subprocess.run([sys.executable, "-m", "leadline.cli", "admin", *args], env=env, capture_output=True,
                          text=True, timeout=60)


async def test_the_command(api, tenant, key, settings):
    await tenant.set_plan("free")  # max_agents 2
    ok = _admin(settings, "add-agent", "--org", tenant.org_id, "--name", "Ann", "--email", "ann@example.com",
                "--role", "manager", "--status", "invited")
    assert ok.returncode == 0, ok.stderr
    agent_id = json.loads(ok.stdout)["agentId"]
    await agent(tenant, "Bob")
    full = _admin(settings, "add-agent", "--org", tenant.org_id, "--name", "Cy", "--email", "cy@example.com")
    assert full.returncode != 0 and full.stdout == ""
    assert "max_agents" in full.stderr and full.stderr.startswith("leadline admin: ")
    await tenant.set_plan("growth")
    data = (await api.get("/v2.0/agents", key)).body["data"]
    assert (data[0]["agentId"], data[0]["role"], data[0]["status"]) == (agent_id, "manager", "invited")
