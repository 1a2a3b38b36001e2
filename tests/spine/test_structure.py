"""The structure the code promises: layer order, central modules that import no domain, no import cycles,
and no raw collection access in domain code.

The import graph is read from the source with `ast` (every import statement, including those under
TYPE_CHECKING or inside functions): the layer folders install as `leadline.<folder>` (setup.py), a
mapping that off-the-shelf import linters, which walk the `leadline/` folder only, cannot follow.
"""
from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"leadline": "leadline", "models": "leadline.models", "resolvers": "leadline.resolvers",
           "schema": "leadline.schema", "rest_compat": "leadline.rest_compat", "jobs": "leadline.jobs",
           "mcp_server": "leadline.mcp_server"}

# Top to bottom: a module may import only from its own layer or the layers below it.
LAYERS = [
    ("wiring and jobs", ("leadline.jobs", "leadline.mcp_server", "leadline.admin", "leadline.app", "leadline.app_keys", "leadline.cli", "leadline.http",
                         "leadline.services", "leadline.webhooks", "leadline.embedded", "leadline.database",
                         "leadline.logs", "leadline.dbprofile", "leadline.apidocs")),
    ("REST table", ("leadline.rest_compat",)),
    ("schema", ("leadline.schema",)),
    ("domain code", ("leadline.resolvers",)),
    ("models", ("leadline.models",)),
    ("settings", ("leadline.config",)),
]
DOMAINS = ("contacts", "chats", "templates", "messaging", "channels")
# Central modules every domain uses: they learn of the domains by registration, never by import.
CENTRAL = ("leadline.resolvers.billing", "leadline.resolvers.webhooks", "leadline.resolvers.runner",
           "leadline.resolvers.events", "leadline.resolvers.context", "leadline.resolvers.errors")


def _modules() -> dict[str, Path]:
    found = {}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The module an imported name lives in: the longest known module prefix."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module: str, path: Path) -> set[str]:
    targets = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            target = _resolve(name)
            if target is not None and target != module:
                targets.add(target)
    return targets


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}


def _layer(module: str) -> int | None:
    if module == "leadline":  # the package's own __init__: wiring
        return 0
    for index, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return index
    return None


def test_every_module_has_a_layer():
    assert [m for m in MODULES if _layer(m) is None] == []


def test_no_module_imports_a_layer_above_it():
    upward = [f"{m} ({LAYERS[_layer(m)][0]}) -> {t} ({LAYERS[_layer(t)][0]})"
              for m, targets in GRAPH.items() for t in targets if _layer(t) < _layer(m)]
    assert upward == []


def test_central_modules_import_no_domain():
    found = [f"{m} -> {t}" for m, targets in GRAPH.items() if m.startswith(CENTRAL)
             for t in targets if t.startswith(tuple(f"leadline.resolvers.{d}" for d in DOMAINS))]
    assert found == []


def test_there_are_no_import_cycles():
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in GRAPH[module]:
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == module:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in MODULES:
        if module not in index:
            visit(module)
    assert cycles == []


def test_the_graph_is_read():
    # Guards the checks above against reading nothing: known edges must be there.
    assert "leadline.resolvers.runner" in GRAPH["leadline.resolvers.billing.limits"]
    assert "leadline.resolvers.billing.usage" in GRAPH["leadline.resolvers.contacts.counters"]
    assert len(MODULES) > 100


_RAW = re.compile(r"\bget_pymongo_collection\s*\(")


def test_domain_code_never_touches_a_raw_collection():
    """Tenancy lives in models/base.py: everything else goes through its scoped helpers."""
    offenders = [f"{path.relative_to(ROOT)}:{n}" for folder in ("resolvers", "schema", "rest_compat", "jobs")
                 for path in (ROOT / folder).rglob("*.py")
                 for n, line in enumerate(path.read_text().splitlines(), 1) if _RAW.search(line)]
    assert offenders == []


REGISTRATIONS = """
import json, sys
import {module}
from leadline.resolvers.billing.usage import tracked_keys
from leadline.resolvers.webhooks.handlers import handled_fields
print(json.dumps([sorted(tracked_keys()), sorted(handled_fields())]))
"""


def test_every_process_has_every_domains_registrations():
    """The worker imports few domain modules itself; a handler missing in a process would acknowledge
    that process's webhook changes as unhandled (it once did)."""
    expected = [["max_agents", "max_ai_followups", "max_ai_insights", "max_campaigns_per_month", "max_contact_tags",
                 "max_contacts", "max_custom_attributes", "max_lead_categories", "max_models", "max_teams",
                 "max_templates", "max_tools"],
                ["leadline.outbound", "message_template_quality_update", "message_template_status_update",
                 "messages", "template_category_update"]]
    for module in ("leadline.jobs.worker", "leadline.app"):
        out = subprocess.run([sys.executable, "-c", REGISTRATIONS.format(module=module)], capture_output=True,
                             text=True, check=True, cwd=ROOT).stdout
        assert json.loads(out) == expected, module
