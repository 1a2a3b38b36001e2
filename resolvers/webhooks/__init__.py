"""Ingestion of the chat provider's webhooks: signature check, then one handler per change `field`."""
