"""POST /v2.0/contacts: upsert by phone, normalisation, custom value coercion, tags, the created event."""
from leadline.models.contacts import ContactCounter
from leadline.models.events import DomainEvent
from tests.contacts.helpers import make_field, make_tag, org_id, upsert
from tests.helpers import assert_error
from tests.leads.helpers import make_category


async def test_create_then_update_by_phone_reports_is_new(api, tenant):
    key = tenant.legacy_key
    await make_category(api, key, "hot")  # a lead category must exist before a contact names it
    created = await api.post("/v2.0/contacts", key, json={"phone": "+1 (415) 555-2671", "contactName": "Ada",
                                                          "lead_category": "hot", "chatapp_undeliverable": True})
    assert created.status == 201, created.body
    assert created.body["message"] == "Contact created"
    data = created.body["data"]
    assert data["isNew"] is True and data["phone"] == "14155552671" and data["countryCode"] == "1"
    assert data["lead_category"] == "hot" and data["chatapp_undeliverable"] is True and data["auto_added"] is False
    assert len(data["_id"]) == 24 and data["customFields"] == {} and data["lead_segments"] == {}
    assert data["createdAt"].endswith("Z") and data["tags"] == []

    updated = await api.post("/v2.0/contacts", key, json={"phone": "4155552671", "countryCode": "+1",
                                                          "email": "ada@example.com", "optedOut": True})
    assert updated.status == 200, updated.body
    again = updated.body["data"]
    assert again["isNew"] is False and again["_id"] == data["_id"]
    assert again["contactName"] == "Ada" and again["email"] == "ada@example.com" and again["optedOut"] is True
    assert updated.body["message"] == "Contact updated"


async def test_local_number_takes_the_country_code(api, tenant):
    gb = await upsert(api, tenant.legacy_key, phone="07911 123456", defaultCountryCode="44")
    assert gb["phone"] == "447911123456" and gb["countryCode"] == "44"
    india = await upsert(api, tenant.legacy_key, phone="98765-43210", countryCode="91")
    assert india["phone"] == "919876543210" and india["countryCode"] == "91"
    same = await upsert(api, tenant.legacy_key, phone="+91 98765 43210")
    assert same["isNew"] is False and same["_id"] == india["_id"]


async def test_missing_and_invalid_phone(api, tenant):
    key = tenant.legacy_key
    assert_error(await api.post("/v2.0/contacts", key, json={"contactName": "x"}), 400, "MISSING_PHONE")
    assert_error(await api.post("/v2.0/contacts", key, json={"phone": "  "}), 400, "MISSING_PHONE")
    assert_error(await api.post("/v2.0/contacts", key, json={"phone": "12345"}), 400, "INVALID_PHONE_NUMBER")
    assert_error(await api.post("/v2.0/contacts", key, json={"phone": "call me"}), 400, "INVALID_PHONE_NUMBER")
    assert_error(await api.post("/v2.0/contacts", key, json={"phone": "9876543210", "countryCode": "999"}),
                 400, "INVALID_PHONE_NUMBER")


async def test_wrong_types_and_unknown_body_fields(api, tenant):
    key = tenant.legacy_key
    body = assert_error(await api.post("/v2.0/contacts", key, json={"phone": "14155552671", "optedOut": "yes"}),
                        400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "optedOut"
    body = assert_error(await api.post("/v2.0/contacts", key, json={"phone": "14155552671", "nickname": "A"}),
                        400, "VALIDATION_ERROR")
    assert body["details"][0]["code"] == "UNKNOWN_FIELD"
    body = assert_error(await api.post("/v2.0/contacts", key, json={"phone": "14155552671", "email": "nope"}),
                        400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "email"


async def test_custom_fields_must_be_a_plain_object(api, tenant):
    key = tenant.legacy_key
    for bad in ([{"plan": "gold"}], "plan=gold", 5, True):
        assert_error(await api.post("/v2.0/contacts", key, json={"phone": "14155552671", "customFields": bad}),
                     400, "INVALID_CUSTOM_FIELDS")


async def test_unknown_custom_field_key_is_refused_not_dropped(api, tenant):
    key = tenant.legacy_key
    await make_field(api, key, fieldName="Plan")
    resp = await api.post("/v2.0/contacts", key, json={"phone": "14155552671",
                                                       "customFields": {"plan": "x", "shoe_size": 42}})
    body = assert_error(resp, 400, "VALIDATION_ERROR")
    assert body["details"] == [{"path": "customFields.shoe_size", "code": "UNKNOWN_CUSTOM_FIELD",
                                "message": body["details"][0]["message"]}]
    assert (await api.post("/v2.0/contacts/phone", key, json={"phone": "14155552671"})).status == 404


async def test_values_are_coerced_by_field_type(api, tenant):
    key = tenant.legacy_key
    await make_field(api, key, fieldName="Score", fieldType="number")
    await make_field(api, key, fieldName="VIP", fieldType="boolean")
    await make_field(api, key, fieldName="Renewal", fieldType="date")
    await make_field(api, key, fieldName="Signed at", fieldKey="signed_at", fieldType="date")
    await make_field(api, key, fieldName="Site", fieldType="url")
    await make_field(api, key, fieldName="Office phone", fieldType="phone")
    await make_field(api, key, fieldName="Tier", fieldType="dropdown", options=["Gold", "Silver"])
    await make_field(api, key, fieldName="Interests", fieldType="multiselect", options=["Shoes", "Bags", "Hats"])
    contact = await upsert(api, key, phone="442079460000", customFields={
        "score": "12.5", "vip": "yes", "renewal": "2026-05-01", "signed_at": "2026-05-01T10:00:00+02:00",
        "site": "https://example.com/a", "office_phone": "020 7946 0958", "tier": "gold",
        "interests": "shoes, Bags;hats|shoes"})
    assert contact["customFields"] == {
        "score": 12.5, "vip": True, "renewal": "2026-05-01", "signed_at": "2026-05-01T08:00:00Z",
        "site": "https://example.com/a", "office_phone": "442079460958", "tier": "Gold",
        "interests": ["Shoes", "Bags", "Hats"]}
    contact = await upsert(api, key, phone="442079460000", customFields={"score": 7, "interests": ["Hats"],
                                                                          "vip": None})
    assert contact["customFields"]["score"] == 7 and contact["customFields"]["interests"] == ["Hats"]
    assert "vip" not in contact["customFields"] and contact["customFields"]["tier"] == "Gold"


async def test_invalid_values_are_reported_per_key(api, tenant):
    key = tenant.legacy_key
    await make_field(api, key, fieldName="Score", fieldType="number")
    await make_field(api, key, fieldName="Tier", fieldType="dropdown", options=["Gold"])
    await make_field(api, key, fieldName="Interests", fieldType="multiselect", options=["Shoes"])
    await make_field(api, key, fieldName="Site", fieldType="url")
    await make_field(api, key, fieldName="Renewal", fieldType="date")
    resp = await api.post("/v2.0/contacts", key, json={"phone": "14155552671", "customFields": {
        "score": "lots", "tier": "Bronze", "interests": "Shoes,Socks", "site": "ftp://x", "renewal": "31/12/2026"}})
    body = assert_error(resp, 400, "VALIDATION_ERROR")
    assert sorted(d["path"] for d in body["details"]) == [
        "customFields.interests", "customFields.renewal", "customFields.score", "customFields.site",
        "customFields.tier"]


async def test_bsuid_is_validated_and_belongs_to_one_contact(api, tenant):
    key = tenant.legacy_key
    contact = await upsert(api, key, phone="14155552671", bsuid="US.abc123XYZ")
    assert contact["bsuid"] == "US.abc123XYZ"
    for bad in ("abc", "XX.abc", "US.abc-def", "US." + "a" * 129):
        body = assert_error(await api.post("/v2.0/contacts", key, json={"phone": "14155552672", "bsuid": bad}),
                            400, "VALIDATION_ERROR")
        assert body["details"][0]["path"] == "bsuid"
    assert_error(await api.post("/v2.0/contacts", key, json={"phone": "14155552672", "bsuid": "US.abc123XYZ"}),
                 409, "CONTACT_ALREADY_EXISTS")


async def test_tags_on_a_contact(api, tenant):
    key = tenant.legacy_key
    vip = await make_tag(api, key, "VIP")
    contact = await upsert(api, key, phone="14155552671", tags=[vip["_id"]])
    assert contact["tags"] == [vip["_id"]]
    assert_error(await api.post("/v2.0/contacts", key, json={"phone": "14155552671", "tags": ["nope"]}),
                 400, "INVALID_TAG_ID")
    assert_error(await api.post("/v2.0/contacts", key, json={"phone": "14155552671", "tags": ["0" * 24]}),
                 404, "TAG_NOT_FOUND")
    assert (await upsert(api, key, phone="14155552671", tags=[]))["tags"] == []


async def test_creation_records_one_contact_created_event(api, tenant):
    key = tenant.legacy_key
    contact = await upsert(api, key, phone="14155552671", bsuid="US.u1", contactName="Ada")
    await upsert(api, key, phone="14155552671", contactName="Ada L")
    events = await DomainEvent.find_in(org_id(tenant), {"kind": "contact.created"}).to_list()
    assert len(events) == 1
    assert events[0].payload["contactId"] == contact["_id"]
    assert events[0].payload["phone"] == "14155552671" and events[0].payload["bsuid"] == "US.u1"


async def test_max_contacts_is_enforced_by_the_counter(api, tenant):
    key = tenant.legacy_key
    await tenant.set_plan("free")  # max_contacts 1,000
    first = await upsert(api, key, phone="14155552671")
    counter = await ContactCounter.find_one_in(org_id(tenant))
    counter.total = 1000  # as if the organisation held 1,000 contacts
    await counter.save()
    body = assert_error(await api.post("/v2.0/contacts", key, json={"phone": "14155552672"}), 403, "LIMIT_EXCEEDED")
    assert (body["limitKey"], body["current"], body["limit"]) == ("max_contacts", 1000, 1000)
    # Updating an existing contact takes no slot.
    assert (await upsert(api, key, phone="14155552671", city="Pune"))["_id"] == first["_id"]


async def test_the_same_operations_through_graphql(api, tenant):
    key = tenant.legacy_key
    mutation = """mutation($input: ContactInput!) { upsertContact(input: $input) {
        isNew contact { _id phone lead_category customFields } } }"""
    await make_category(api, key, "Warm")
    created = await api.graphql(mutation, key, {"input": {"phone": "+14155552671", "lead_category": "warm"}})
    assert created.body["data"]["upsertContact"]["isNew"] is True
    assert created.body["data"]["upsertContact"]["contact"]["lead_category"] == "Warm"  # canonical name
    refused = await api.graphql(mutation, key, {"input": {"contactName": "x"}})
    assert refused.body["errors"][0]["extensions"]["code"] == "MISSING_PHONE"
    scoped = await tenant.key("contacts:read")
    denied = await api.graphql(mutation, scoped, {"input": {"phone": "+14155552671"}})
    assert denied.body["errors"][0]["extensions"]["required_scope"] == "contacts:write"
