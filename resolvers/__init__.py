"""Domain logic: plain async functions of (ctx, input) called by GraphQL, REST, MCP, jobs and tests."""
