"""POST /v2.0/chatapp/send: the immediate template send, what it stores, and every refusal."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.contacts import Contact
from leadline.models.events import DomainEvent
from tests.helpers import assert_error, make_tenant
from tests.messaging.support import BSUID, PHONE, TEMPLATE_ID, outbound_messages, seed_template, send_body
from tests.templates.support import BRAND, connect_brand


async def test_immediate_send_is_accepted_and_recorded(api, tenant, brand, sender):
    await seed_template(tenant)
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(storeInAIContext=True))
    assert resp.status == 200, resp.body
    data = resp.body["data"]
    assert resp.body["success"] is True
    assert set(data) == {"messageId", "status", "recipient", "template"}
    assert data["status"] == "accepted" and data["recipient"] == PHONE
    assert data["template"] == {"name": "order_update", "id": TEMPLATE_ID, "language": "en"}

    [message] = await outbound_messages(tenant)
    assert str(message.id) == data["messageId"] and message.cmid.startswith("wamid.")
    assert message.type == "template" and message.status == "accepted" and message.store_in_ai_context
    assert message.text == "Hi Ann, your order A-17 ships today."
    assert message.components == [
        {"type": "header", "parameters": [{"type": "text", "text": "A-17"}]},
        {"type": "body", "parameters": [{"type": "text", "text": "Ann"}, {"type": "text", "text": "A-17"}]},
        {"type": "button", "sub_type": "url", "index": "1", "parameters": [{"type": "text", "text": "A-17"}]},
    ]
    contact = await Contact.find_one_in(ObjectId(tenant.org_id), {"phone": PHONE})
    assert contact is not None and contact.auto_added and message.contact_id == contact.id
    [event] = await DomainEvent.find_in(ObjectId(tenant.org_id), {"kind": "chatapp.message_sent"}).to_list()
    assert event.payload["messageId"] == data["messageId"] and event.payload["phone"] == PHONE
    assert event.payload["cmid"] == message.cmid and event.payload["bsuid"] is None


async def test_by_name_and_language_and_with_a_local_number(api, tenant, brand, sender):
    await seed_template(tenant, language="en_US")
    await seed_template(tenant, template_id="222", status="PENDING", language="es")
    body = send_body(templateId=None, templateName="order_update", language="en_US", to="(415) 555-2671",
                     defaultCountryCode="1")
    resp = await api.post("/v2.0/chatapp/send", sender, json=body)
    assert resp.status == 200, resp.body
    assert resp.body["data"]["recipient"] == PHONE and resp.body["data"]["template"]["language"] == "en_US"
    # language defaults to `en`: no such template
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(templateId=None, templateName="order_update"))
    assert_error(resp, 404, "TEMPLATE_NOT_FOUND")


async def test_a_bsuid_is_forwarded_unchanged(api, tenant, brand, sender):
    await seed_template(tenant)
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(to=BSUID))
    assert resp.status == 200, resp.body
    assert resp.body["data"]["recipient"] == BSUID
    [message] = await outbound_messages(tenant)
    assert message.bsuid == BSUID and message.phone is None


async def test_missing_parts_are_refused_with_the_spec_codes(api, tenant, brand, sender):
    await seed_template(tenant)
    cases = [
        (send_body(to=None), 400, "MISSING_RECIPIENT"),
        (send_body(to="  "), 400, "MISSING_RECIPIENT"),
        (send_body(brandNumber=None), 400, "BRAND_NUMBER_MISSING"),
        (send_body(templateId=None), 400, "MISSING_TEMPLATE"),
        (send_body(to="12345"), 400, "INVALID_PHONE_NUMBER"),
        (send_body(to="XX.abc"), 400, "INVALID_PHONE_NUMBER"),
        (send_body(brandNumber="15550009999"), 404, "BIZACCT_NOT_FOUND"),
        (send_body(templateId="999"), 404, "TEMPLATE_NOT_FOUND"),
        (send_body(bodyParameters=["Ann"]), 400, "PARAMETER_VALIDATION_ERROR"),
        (send_body(headerParameters=None), 400, "PARAMETER_VALIDATION_ERROR"),
        (send_body(buttonParameters=["a", "b"]), 400, "PARAMETER_VALIDATION_ERROR"),
        (send_body(bodyParameters=["Ann", ""]), 400, "PARAMETER_VALIDATION_ERROR"),
        (send_body(mediaUrl="https://cdn.example.com/a.png"), 400, "PARAMETER_VALIDATION_ERROR"),
        (send_body(scheduledAt="2020-01-01T00:00:00Z"), 400, "INVALID_SCHEDULE_TIME"),
        (send_body(unknownField=1), 400, "VALIDATION_ERROR"),
        (send_body(bodyParameters=["Ann", 17]), 400, "VALIDATION_ERROR"),
    ]
    for body, status, code in cases:
        assert_error(await api.post("/v2.0/chatapp/send", sender, json=body), status, code)
    assert await outbound_messages(tenant) == []


async def test_parameter_errors_list_every_problem(api, tenant, brand, sender):
    await seed_template(tenant)
    resp = await api.post("/v2.0/chatapp/send", sender,
                          json=send_body(headerParameters=[], bodyParameters=["x"], buttonParameters=[]))
    err = assert_error(resp, 400, "PARAMETER_VALIDATION_ERROR")
    assert [d["path"] for d in err["details"]] == ["headerParameters", "bodyParameters", "buttonParameters"]
    assert "expects 2 value(s) in bodyParameters, got 1" in err["details"][1]["message"]


async def test_only_approved_and_unpaused_templates_of_this_organisation(api, tenant, brand, sender, client):
    await seed_template(tenant, template_id="301", status="PENDING")
    await seed_template(tenant, template_id="302", status="REJECTED")
    await seed_template(tenant, template_id="303", provider_status="PAUSED")
    other = await make_tenant(client, name="Other")
    await seed_template(other, template_id="304")
    for template_id in ("301", "302", "303", "304"):
        resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(templateId=template_id))
        assert_error(resp, 404, "TEMPLATE_NOT_FOUND")


async def test_an_inactive_or_foreign_number_is_not_found(api, tenant, brand, sender, client):
    await seed_template(tenant)
    other = await make_tenant(client, name="Other")
    await connect_brand(other, number="15550002222")
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(brandNumber="15550002222"))
    assert_error(resp, 404, "BIZACCT_NOT_FOUND")
    from leadline.models.channels import ChannelAccount
    account = await ChannelAccount.find_one_in(ObjectId(tenant.org_id), {"platform": "chatapp", "number": BRAND})
    account.is_active = False
    await account.save()
    assert_error(await api.post("/v2.0/chatapp/send", sender, json=send_body()), 404, "BIZACCT_NOT_FOUND")


async def test_media_headers_need_media_url(api, tenant, brand, sender):
    components = [{"type": "HEADER", "format": "DOCUMENT"}, {"type": "BODY", "text": "Your invoice"}]
    await seed_template(tenant, components=components, header_filename="invoice.pdf")
    body = send_body(headerParameters=None, bodyParameters=None, buttonParameters=None)
    err = assert_error(await api.post("/v2.0/chatapp/send", sender, json=body), 400, "PARAMETER_VALIDATION_ERROR")
    assert err["details"][0]["path"] == "mediaUrl"
    resp = await api.post("/v2.0/chatapp/send", sender, json={**body, "mediaUrl": "ftp://x/y.pdf"})
    assert_error(resp, 400, "PARAMETER_VALIDATION_ERROR")
    resp = await api.post("/v2.0/chatapp/send", sender, json={**body, "mediaUrl": "https://cdn.example.com/i.pdf"})
    assert resp.status == 200, resp.body
    [message] = await outbound_messages(tenant)
    assert message.components[0] == {"type": "header", "parameters": [
        {"type": "document", "document": {"link": "https://cdn.example.com/i.pdf", "filename": "invoice.pdf"}}]}


async def test_authentication_templates_need_the_otp(api, tenant, brand, sender):
    components = [{"type": "BODY", "add_security_recommendation": True},
                  {"type": "BUTTONS", "buttons": [{"type": "OTP", "otp_type": "COPY_CODE"}]}]
    await seed_template(tenant, category="AUTHENTICATION", name="login_code", components=components)
    body = send_body(headerParameters=None, bodyParameters=None, buttonParameters=None)
    err = assert_error(await api.post("/v2.0/chatapp/send", sender, json=body), 400, "PARAMETER_VALIDATION_ERROR")
    assert err["details"][0]["path"] == "otp"
    resp = await api.post("/v2.0/chatapp/send", sender, json={**body, "otp": 482913})
    assert resp.status == 200, resp.body
    [message] = await outbound_messages(tenant)
    assert message.components == [
        {"type": "body", "parameters": [{"type": "text", "text": "482913"}]},
        {"type": "button", "sub_type": "url", "index": "0", "parameters": [{"type": "text", "text": "482913"}]},
    ]


async def test_scopes(api, tenant, brand):
    await seed_template(tenant)
    reader = await tenant.key("messages:read")
    resp = await api.post("/v2.0/chatapp/send", reader, json=send_body())
    err = assert_error(resp, 403, "INSUFFICIENT_SCOPE", marker="error")
    assert err["required_scope"] == "messages:send"
    assert_error(await api.post("/v2.0/chatapp/send", None, json=send_body()), 401, "API_KEY_MISSING")
    full = await tenant.key("*")
    assert (await api.post("/v2.0/chatapp/send", full, json=send_body())).status == 200
    assert (await api.post("/v2.0/chatapp/send", tenant.legacy_key, json=send_body())).status == 200


async def test_the_same_send_through_graphql(api, tenant, brand, sender):
    await seed_template(tenant)
    query = """mutation($input: SendTemplateInput!) { sendTemplateMessage(input: $input) {
                 scheduled messageId status recipient template { name id language } } }"""
    resp = await api.graphql(query, sender, {"input": send_body(storeInAIContext=False)})
    assert resp.status == 200 and "errors" not in resp.body, resp.body
    data = resp.body["data"]["sendTemplateMessage"]
    assert data["scheduled"] is False and data["status"] == "accepted" and data["recipient"] == PHONE
    resp = await api.graphql(query, sender, {"input": send_body(templateId="nope")})
    assert resp.body["errors"][0]["extensions"]["code"] == "TEMPLATE_NOT_FOUND"
