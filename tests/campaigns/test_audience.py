"""Audiences: segments, tags, exclusions, filters and contacts mode, through POST /v2.0/campaigns/preview
(nothing written) and create; segments through GraphQL and the admin command."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

from bson import ObjectId

from leadline.models.campaigns import Campaign
from leadline.models.contacts import Contact
from tests.campaigns.support import add_contacts, body
from tests.helpers import assert_error
from tests.templates.support import BRAND

PREVIEW = "/v2.0/campaigns/preview"
CREATE_SEGMENT = "mutation($input: SegmentInput!) { createSegment(input: $input) { segmentId name isActive } }"


async def segment(api, key, name, rules, active=True) -> str:
    resp = await api.graphql(CREATE_SEGMENT, key, {"input": {"name": name, "filter": rules, "isActive": active}})
    return resp.body["data"]["createSegment"]["segmentId"]


async def preview(api, key, audience) -> dict:
    resp = await api.post(PREVIEW, key, json={"brandNumber": BRAND, "audience": audience})
    assert resp.status == 200, resp.body
    return resp.body["data"]


async def test_buckets_add_up_and_nothing_is_written(api, tenant, brand, writer):
    await add_contacts(api, writer, 3, source="csv")
    await add_contacts(api, writer, 2, first=3000, source="csv", optedOut=True)
    await add_contacts(api, writer, 1, first=4000, source="csv", chatapp_undeliverable=True)
    await add_contacts(api, writer, 1, first=5000, source="web", email="x@y.io")
    data = await preview(api, writer, {"filters": {"source": "csv"}})
    assert data["mode"] == "segments" and data["totalContacts"] == 6
    assert data["breakdown"] == {"chatappEligible": 3, "optedOut": 2, "undeliverable": 1}
    assert len(data["sample"]) == 6 and set(data["sample"][0]) == {"phone", "name", "email", "optedOut"}
    assert sum(s["optedOut"] for s in data["sample"]) == 2
    off = await preview(api, writer, {"filters": {"source": "csv"}, "ignoreUndeliverable": False})
    assert off["breakdown"] == {"chatappEligible": 4, "optedOut": 2, "undeliverable": 0}
    assert (await preview(api, writer, {"filters": {"hasEmail": True}}))["totalContacts"] == 1
    assert (await preview(api, writer, {}))["totalContacts"] == 7
    assert (await preview(api, writer, {"filters": {"source": "nowhere"}}))["totalContacts"] == 0
    assert await Campaign.count_in(ObjectId(tenant.org_id)) == 0


async def test_segments_tags_and_exclusions(api, tenant, brand, writer):
    tag = (await api.post("/v2.0/contacts/tags", writer, json={"name": "vip"})).body["data"]["_id"]
    await add_contacts(api, writer, 2, city="Lisbon")
    await add_contacts(api, writer, 2, first=3000, city="Porto", tags=[tag])
    await add_contacts(api, writer, 1, first=4000, city="Faro")
    lisbon = await segment(api, writer, "Lisbon", {"city": "lisbon"})
    faro = await segment(api, writer, "Faro", {"city": "^faro$"})
    data = await preview(api, writer, {"segmentIds": [lisbon], "tags": [tag]})
    assert data["totalContacts"] == 4
    assert data["segmentsUsed"] == [{"id": lisbon, "name": "Lisbon"}]
    assert (await preview(api, writer, {"segmentIds": [lisbon, faro], "excludeSegmentIds": [faro]}))["totalContacts"] == 2
    assert (await preview(api, writer, {"excludeTags": [tag]}))["totalContacts"] == 3
    narrowed = {"segmentIds": [lisbon], "tags": [tag], "filters": {"advancedFilters": {"city": "port"}}}
    assert (await preview(api, writer, narrowed))["totalContacts"] == 2


async def test_bad_audiences_are_refused(api, tenant, brand, writer, template):
    inactive = await segment(api, writer, "Old", {"city": "x"}, active=False)
    for audience, path in [({"segmentIds": [str(ObjectId())]}, "audience.segmentIds[0]"),
                           ({"segmentIds": [inactive]}, "audience.segmentIds[0]"),
                           ({"segmentIds": ["nope"]}, "audience.segmentIds[0]"),
                           ({"contacts": [{"phone": "14155552671"}], "tags": [str(ObjectId())]}, "audience.contacts"),
                           ({"filters": {"advancedFilters": {"nope": 1}}}, "audience.filters.advancedFilters.nope")]:
        resp = await api.post(PREVIEW, writer, json={"brandNumber": BRAND, "audience": audience})
        err = assert_error(resp, 400, "CAMPAIGN_AUDIENCE_INVALID", marker="error")
        assert err["details"][0]["path"] == path, err
    resp = await api.post("/v2.0/campaigns", writer, json=body(template, audience=None))
    assert_error(resp, 400, "CAMPAIGN_AUDIENCE_INVALID", marker="error")


async def test_contacts_mode(api, tenant, brand, template, writer, run_worker):
    await add_contacts(api, writer, 1, first=3000, optedOut=True)  # 14155553000
    listed = [{"phone": "+1 415 555 2000", "name": "Ann", "custom": {"plan": "gold"}},
              {"phone": "14155552000", "name": "Dup"},
              {"phone": "14155553000", "name": "Out"},
              {"phone": "14155552001", "name": "Bob", "variables": {"body": ["Robert", "VIP"]}}]
    data = await preview(api, writer, {"contacts": listed})
    assert data["mode"] == "contacts" and data["totalContacts"] == 3
    assert data["breakdown"] == {"chatappEligible": 2, "optedOut": 1, "undeliverable": 0}
    org = ObjectId(tenant.org_id)
    assert await Contact.count_in(org) == 1  # a preview creates nobody
    dry = await api.post("/v2.0/campaigns", writer, json=body(template, audience={"contacts": listed}, dryRun=True))
    assert dry.status == 200 and dry.body["dryRun"] is True
    assert dry.body["data"] == {"totalContacts": 2, "resolvedSample": [
        {"phone": "14155552000", "name": "Ann", "body": ["Ann", "SAVE10"]},
        {"phone": "14155552001", "name": "Bob", "body": ["Robert", "VIP"]}]}
    assert await Contact.count_in(org) == 1 and await Campaign.count_in(org) == 0
    created = await api.post("/v2.0/campaigns", writer, json=body(template, audience={"contacts": listed}))
    assert created.status == 201 and created.body["data"]["totalContacts"] == 2
    new = await Contact.find_in(org, {"phone": {"$in": ["14155552000", "14155552001"]}}).to_list()
    assert sorted((c.contactName, c.source) for c in new) == [("Ann", "campaign"), ("Bob", "campaign")]
    await run_worker()


async def test_the_operator_creates_segments(api, tenant, settings):
    env = {**os.environ, "MONGODB_URL": settings.mongodb_url, "REDIS_URL": settings.redis_url,
           "MONGODB_DATABASE": settings.database_name, "LEADLINE_REDIS_PREFIX": settings.redis_prefix}

    def run(*args):
        proc = subprocess.run([sys.executable, "-m", "leadline.cli", "admin", "create-segment", "--org", tenant.org_id,
                               *args], env=env, capture_output=True, text=True, timeout=60)
        return proc.returncode, proc.stdout, proc.stderr

    loop = asyncio.get_running_loop()
    code, out, _ = await loop.run_in_executor(None, run, "--name", "Gold", "--filter", '{"customFields.plan": "gold"}',
                                              "--inactive")
    assert code == 0
    segment_id = json.loads(out)["segmentId"]
    listed = await api.graphql("{ segments { data { segmentId name isActive filter } pagination { total } } }",
                               await tenant.key("config:read"))
    assert listed.body["data"]["segments"]["data"] == [
        {"segmentId": segment_id, "name": "Gold", "isActive": False, "filter": {"customFields.plan": "gold"}}]
    code, _, err = await loop.run_in_executor(None, run, "--name", "Bad", "--filter", '{"nope": 1}')
    assert code == 2 and "nope" in err
