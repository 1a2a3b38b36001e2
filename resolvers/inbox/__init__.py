"""Team inbox: agents, teams, assignment, inbox statuses, live updates: the domain logic."""
