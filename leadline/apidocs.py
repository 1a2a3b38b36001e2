"""`GET /v2.0/openapi.json` and `GET /docs`: the generated OpenAPI document and a readable reference of it.

The document is built once at start-up (rest_compat/openapi.py) and served as the same bytes to every
caller, without a key. `/docs` is Swagger UI from the `swagger-ui-bundle-v2` package (assets served
from the installed package under `/docs/assets/`, so the page works offline), with a box at the top to
paste an API key: every "Try it out" call then sends `Authorization: Bearer <key>`. The key stays in
the browser (Swagger UI's own storage).
"""
from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from leadline.rest_compat.openapi import OPENAPI_PATH

OPENAPI_BYTES = web.AppKey("openapi_bytes", bytes)
DOCS_PATH = "/docs"

_PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Leadline API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <style>
    body { margin: 0; font-family: sans-serif; }
    #keybar { display: flex; gap: .5em; align-items: center; padding: .75em 1.5em; background: #1b1b1b; color: #fff; }
    #keybar input { flex: 1; max-width: 36em; padding: .4em; font-family: monospace; }
    #keybar button { padding: .4em 1em; }
    #keybar small { color: #bbb; }
  </style>
</head>
<body>
  <div id="keybar">
    <label for="apikey">API key</label>
    <input id="apikey" type="password" autocomplete="off" placeholder="paste a key (sk_... or a legacy key)">
    <button id="usekey" type="button">Use key</button>
    <small id="keystate">Calls from "Try it out" send <code>Authorization: Bearer &lt;key&gt;</code>.</small>
  </div>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script>
    const ui = SwaggerUIBundle({
      url: __OPENAPI__,
      dom_id: "#swagger-ui",
      deepLinking: true,
      persistAuthorization: true,
      displayOperationId: true,
      tryItOutEnabled: false,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      layout: "StandaloneLayout"
    });
    document.getElementById("usekey").addEventListener("click", () => {
      const key = document.getElementById("apikey").value.trim();
      if (!key) return;
      ui.preauthorizeApiKey("bearerAuth", key);
      document.getElementById("keystate").textContent = "Key set: Try it out sends it.";
    });
  </script>
</body>
</html>
"""


def docs_page() -> str:
    return _PAGE.replace("__OPENAPI__", json.dumps(OPENAPI_PATH))


def _assets_dir() -> Any:
    from swagger_ui_bundle import swagger_ui_path

    return swagger_ui_path


async def openapi_json(request: web.Request) -> web.Response:
    return web.Response(body=request.app[OPENAPI_BYTES], content_type="application/json")


async def docs(request: web.Request) -> web.Response:
    return web.Response(text=docs_page(), content_type="text/html")


def add_docs_routes(app: web.Application, document: dict[str, Any]):
    """Registers the document (as bytes) and the docs page; returns the openapi.json route (for CORS)."""
    app[OPENAPI_BYTES] = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
    route = app.router.add_get(OPENAPI_PATH, openapi_json)
    app.router.add_get(DOCS_PATH, docs)
    app.router.add_static(f"{DOCS_PATH}/assets", str(_assets_dir()), append_version=False)
    return route


GRAPHIQL_HEADERS_PLACEHOLDER = '{\n  "Authorization": "Bearer <paste your API key>"\n}'
_GRAPHIQL_NOTE = """# Leadline GraphQL. Every request needs an API key: the Headers pane (below the
# query editor) is prefilled with
#   {"Authorization": "Bearer <paste your API key>"}
# Replace the placeholder with a key from `leadline admin create-key`, then run e.g.
#   { billingPlan { plan { name } } }
#
"""


def graphiql_page(html: str) -> str:
    """Strawberry's GraphiQL page with the Authorization header prefilled (a placeholder) and a note on it
    at the top of the query editor. If Strawberry's page changes shape, it is served unchanged."""
    anchors = ("const EXAMPLE_QUERY = `", "React.useState(parameters.headers)")
    if not all(anchor in html for anchor in anchors):
        return html
    html = html.replace(anchors[0], anchors[0] + _GRAPHIQL_NOTE.replace("`", "\\`"), 1)
    return html.replace(anchors[1], f"React.useState(parameters.headers || {json.dumps(GRAPHIQL_HEADERS_PLACEHOLDER)})",
                        1)
