"""The layer folders install under the `leadline` namespace: nothing generic lands in site-packages."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("models", "resolvers", "schema", "rest_compat", "jobs", "mcp_server")

PROBE = """
import importlib.util, json
found = {}
for name in %r:
    spec = importlib.util.find_spec(name)
    namespaced = importlib.util.find_spec("leadline." + name)
    found[name] = [spec.origin if spec else None, namespaced.origin if namespaced else None]
print(json.dumps(found))
"""


def test_layers_import_only_as_leadline_subpackages(tmp_path):
    # From a directory outside the checkout, as an installed service would run.
    out = subprocess.run([sys.executable, "-c", PROBE % (LAYERS,)], cwd=tmp_path, capture_output=True, text=True,
                         check=True).stdout
    for layer, (bare, namespaced) in json.loads(out).items():
        assert bare is None or not bare.startswith(str(ROOT)), f"'{layer}' is importable as a top-level package"
        assert namespaced == str(ROOT / layer / "__init__.py"), (layer, namespaced)
