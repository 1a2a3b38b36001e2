"""Authentication: API keys, scopes, the key cache and the per-key rate limits."""
