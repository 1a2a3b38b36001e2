"""AI tools assistants call: definitions by type, secrets, history, run logs: the domain logic."""
