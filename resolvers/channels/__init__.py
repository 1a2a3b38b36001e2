"""Channel accounts, their provider adapters and connection health."""
