"""Insights: daily AI rollups and lead-pipeline snapshots: GraphQL types and operations."""
