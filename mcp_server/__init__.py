"""The MCP server: the /v2.0 surface as tools (one per route) and three playbook prompts.

Installed as `leadline.mcp_server` (setup.py), never as a package named `mcp` (the SDK's). It serves
streamable HTTP at `/mcp`, legacy SSE at `/sse` (messages at `/messages/`) and `GET /health`, on
`leadline up --mcp-port` (default 8081) or alone with `leadline mcp` (LEADLINE_MCP_PORT).

- `catalogue.py`: the tools, derived from the operation declarations (`McpTool`) and the REST route
  table's compiled operations; `schemas.py` and `constraints.py` give their input schemas.
- `calls.py`: one tool call, run as its REST route runs (rate limit, scope, plan, tenancy, envelope).
- `auth.py`: the Bearer key checked on every HTTP request (401 with the REST error body).
- `prompts.py`: the three playbooks; `app.py`: the SDK server and the ASGI app; `serve.py`: running it.
"""
