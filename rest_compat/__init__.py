"""The /v2.0 REST surface: one declarative route table mapped onto GraphQL operations."""
