"""Odd payloads merged over real tools and assistants (the route fuzzer's ids are never found): whatever
arrives, the answer is a documented 2xx/4xx, never a 5xx."""
from __future__ import annotations

import asyncio
import json
import os
import time

from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from leadline.resolvers.tools.definitions import TOOL_TYPES
from tests.tools.support import create, example

EXAMPLES = int(os.environ.get("LEADLINE_FUZZ_EXAMPLES", "25"))
LEAF = st.one_of(st.none(), st.booleans(), st.integers(-5, 400), st.text(max_size=12),
                 st.sampled_from(["button", "list", "template", "generic", "web_url", "postback", "image", "text",
                                  "bearer", "basic", "api_key", "query", "custom", "GET", "{{x}}", "0" * 24]))
JSON = st.recursive(LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                  st.dictionaries(st.sampled_from(
                                                      ["type", "text", "body", "action", "buttons", "reply", "id",
                                                       "title", "message", "attachment", "payload", "elements",
                                                       "quick_replies", "url", "sections", "rows", "header",
                                                       "properties", "required", "parameters", "cards"]),
                                                      inner, max_size=4)), max_leaves=16)
FIELDS = ["name", "description", "isActive", "pixelEvent", "tags", "serverUrl", "requestMethod", "auth", "headers",
          "bodyMode", "customPayload", "parameters", "timeout", "response", "isStrict", "mediaIds", "templateType",
          "components", "headerType", "mediaId", "photoappComponents", "pageappComponents", "catalogAction",
          "storeappAction", "extraMessages"]
PATCHES = st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=4)


async def test_odd_patches_never_break_a_tool(api, tenant):
    key = await tenant.key("*")
    ids = [(await create(api, key, example(t)))["_id"] for t in TOOL_TYPES]
    loop = asyncio.get_running_loop()
    failures = []

    @hsettings(max_examples=EXAMPLES * 4, deadline=None, database=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(patch=PATCHES, which=st.integers(0, len(ids) - 1))
    def probe(patch, which):
        time.sleep(0.02)
        raw = json.dumps(patch)
        resp = asyncio.run_coroutine_threadsafe(api.call("PATCH", f"/v2.0/tools/{ids[which]}", key, data=raw,
                                                         headers={"Content-Type": "application/json"}), loop).result(60)
        if resp.status >= 500 or resp.status == 429:
            failures.append((resp.status, raw[:300], str(resp.body)[:300]))
        assert resp.status < 500, (raw, resp.body)

    await loop.run_in_executor(None, probe)
    assert failures == []
    for tool_id in ids:  # every tool still reads back
        assert (await api.get(f"/v2.0/tools/{tool_id}", key)).status == 200


async def test_odd_assistant_patches_never_break_an_assistant(api, tenant):
    key = await tenant.key("*")
    made = await api.post("/v2.0/assistants", key, json={"name": "Bot", "provider": "sandbox", "model": "sandbox-echo"})
    model_id = made.body["data"]["modelId"]
    loop = asyncio.get_running_loop()
    names = ["name", "provider", "model", "isActive", "maxTokens", "temperature", "topP", "tools", "voiceProvider",
             "voiceModel", "voiceName", "phoneNumbersList", "channel", "clearChatHistory", "systemPrompt"]

    @hsettings(max_examples=EXAMPLES * 2, deadline=None, database=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(patch=st.dictionaries(st.sampled_from(names), JSON, max_size=4))
    def probe(patch):
        time.sleep(0.02)
        raw = json.dumps(patch)
        resp = asyncio.run_coroutine_threadsafe(api.call("PATCH", f"/v2.0/assistants/{model_id}", key, data=raw,
                                                         headers={"Content-Type": "application/json"}), loop).result(60)
        assert resp.status < 500 and resp.status != 429, (raw, resp.body)

    await loop.run_in_executor(None, probe)
    assert (await api.get(f"/v2.0/assistants/{model_id}", key)).status == 200
