"""GraphQL schema of the billing domain."""
