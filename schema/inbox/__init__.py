"""Team inbox: agents, teams, assignment, inbox statuses, live updates: GraphQL types and operations."""
