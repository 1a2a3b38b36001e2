"""GraphQL types and root fields of the contacts domain."""
