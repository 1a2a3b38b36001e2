"""Outside development (SSRF, OWASP API7): endpoint URLs are https and never internal when saved, and a
delivery never connects to an internal address, even when a name that was public resolves to one later
(DNS rebinding): such an attempt fails without reaching the receiver."""
from __future__ import annotations

import socket
from dataclasses import replace

import pytest
from bson import ObjectId

from leadline.models.events import WebhookDelivery, WebhookEndpoint
from leadline.resolvers.events.signing import new_secret
from leadline.resolvers.secrets import keyring
from tests.events.support import CREATE, gql_error, upsert_contact, wait_until


@pytest.fixture
def settings(settings):
    return replace(settings, environment="production", secret_key="k" * 40, webhook_timeout_seconds=2.0)


@pytest.mark.parametrize("url", [
    "http://hooks.example.com/x",  # https only
    "https://127.0.0.1/x", "https://10.1.2.3/x", "https://192.168.0.7/x", "https://172.16.5.4/x",
    "https://169.254.169.254/latest/meta-data", "https://[::1]/x", "https://[fe80::1]/x", "https://0.0.0.0/x",
    "https://localhost/x", "https://api.localhost/x", "https://[::ffff:127.0.0.1]/x",
])
async def test_internal_or_plain_http_urls_are_refused(api, tenant, url):
    ext = await gql_error(api, tenant.legacy_key, CREATE, input={"url": url})
    assert ext["code"] == "WEBHOOK_URL_INVALID" and ext["status"] == 400, ext


def _loopback_name() -> str | None:
    """A host name (not `localhost`) this machine resolves to a loopback address, if any."""
    for name in ("vm", "runsc", socket.gethostname(), "ip6-localhost", "ip6-loopback"):
        try:
            addresses = {info[4][0] for info in socket.getaddrinfo(name, None)}
        except OSError:
            continue
        if addresses and all(a.startswith("127.") or a == "::1" for a in addresses):
            return name
    return None


async def test_a_name_resolving_to_an_internal_address_is_refused(api, tenant):
    name = _loopback_name()
    if name is None:
        pytest.skip("no host name resolves to loopback here")
    resp = await api.graphql(CREATE, tenant.legacy_key, {"input": {"url": f"https://{name}/hook"}})
    [error] = resp.body["errors"]
    assert error["extensions"]["code"] == "WEBHOOK_URL_INVALID"
    assert f"{name} resolves to a private, loopback or link-local address" in error["message"]


@pytest.mark.parametrize("host", ["127.0.0.1", "name"])
async def test_delivery_never_connects_to_an_internal_address(api, tenant, services, receiver, engine, host):
    """The endpoint was saved while its name was public; it now points at an internal address."""
    if host == "name":
        host = _loopback_name()
        if host is None:
            pytest.skip("no host name resolves to loopback here")
    org = ObjectId(tenant.org_id)
    port = receiver.server.port
    sealed = (await keyring(services.settings)).seal(new_secret())
    endpoint = WebhookEndpoint.new(org, url=f"https://{host}:{port}/hook", secret=sealed)
    await endpoint.insert()
    await upsert_contact(api, tenant.legacy_key, "14155550300")

    async def attempted():
        rows = await WebhookDelivery.find_in(org, {"endpoint_id": endpoint.id}).to_list()
        return rows if rows and rows[0].attempts else None

    [row] = await wait_until(attempted, what="an attempt")
    attempt = row.attempts[0]
    assert attempt["httpStatus"] is None and attempt["error"].startswith("refused:"), attempt
    assert "private, loopback or link-local" in attempt["error"]
    assert row.status == "pending" and receiver.received == []
