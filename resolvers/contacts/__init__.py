"""The contacts domain: upsert by phone, list/filter/lookup, custom field definitions and tags."""
