"""GraphQL types and root fields of the templates domain."""
