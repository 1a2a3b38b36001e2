"""AI assistants: configuration, channel binding, version history (issue: assistants and tools): the domain logic."""
