"""Lead segmentation (AI lead studio): one configuration per organisation: the domain logic."""
