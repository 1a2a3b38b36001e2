"""Packaging: the top-level layer folders install under the `leadline` namespace.

`schema/` is `leadline.schema`, `resolvers/` is `leadline.resolvers`, and so on, so nothing with a
generic name (`schema` is also a PyPI package) lands in site-packages. Metadata is in pyproject.toml.
"""
from setuptools import find_packages, setup

LAYERS = ("models", "resolvers", "schema", "rest_compat", "jobs", "mcp_server")

package_dir = {"leadline": "leadline", **{f"leadline.{layer}": layer for layer in LAYERS}}
packages = ["leadline", *(f"leadline.{sub}" for sub in find_packages("leadline"))]
for layer in LAYERS:
    packages += [f"leadline.{layer}", *(f"leadline.{layer}.{sub}" for sub in find_packages(layer))]

setup(package_dir=package_dir, packages=packages)
