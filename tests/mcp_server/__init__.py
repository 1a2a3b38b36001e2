"""Tests of the MCP server (leadline.mcp_server) with the official `mcp` client against `leadline up`."""
