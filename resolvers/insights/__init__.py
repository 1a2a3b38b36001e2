"""Insights: daily AI rollups and lead-pipeline snapshots: the domain logic."""
