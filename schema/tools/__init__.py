"""AI tools assistants call: definitions by type, secrets, history, run logs: GraphQL types and operations."""
