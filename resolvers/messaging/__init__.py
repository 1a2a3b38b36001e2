"""The send side of chat messaging: template and freeform sends, the tier, status, scheduling."""
