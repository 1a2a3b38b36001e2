"""GraphQL types and operations of API keys (full-access keys only)."""
