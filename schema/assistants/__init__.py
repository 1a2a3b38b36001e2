"""AI assistants: configuration, channel binding, version history (issue: assistants and tools): GraphQL types and operations."""
