"""GraphQL types and root fields of the messaging (send) domain."""
