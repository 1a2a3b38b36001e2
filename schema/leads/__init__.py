"""Lead segmentation (AI lead studio): one configuration per organisation: GraphQL types and operations."""
