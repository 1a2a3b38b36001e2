"""Campaigns: segments, audiences, bulk personalised sends, reports: GraphQL types and operations."""
