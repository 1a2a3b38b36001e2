"""arq tasks, one module per domain, and the worker that runs them."""
