"""Campaigns: segments, audiences, bulk personalised sends, reports: the domain logic."""
