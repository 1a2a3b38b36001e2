"""Message templates: list and fetch, local validation, submission for review, review updates."""
