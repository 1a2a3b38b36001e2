"""Wiring of the Leadline service: configuration, app factory, embedded stack and CLI."""
