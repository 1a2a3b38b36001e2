"""Plans, limits, usage, subscriptions, payments and the wallet."""
