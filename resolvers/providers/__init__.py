"""The messaging-provider boundary: the adapter interface, the sandbox and the Cloud-API adapter."""
