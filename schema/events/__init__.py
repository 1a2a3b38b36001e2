"""Outgoing events: webhook endpoints and their delivery log (GraphQL only, full-access keys)."""
