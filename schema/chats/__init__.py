"""Chats schema: history and the conversation list (resolvers.chats)."""
