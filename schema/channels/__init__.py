"""GraphQL schema of the channels domain."""
