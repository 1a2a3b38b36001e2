"""`leadline --help` and every subcommand's: each flag explained with its default; admin's --data-dir anywhere."""
from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from leadline.cli import build_parser
from leadline.resolvers.auth.scopes import SCOPES


def _subparsers(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    yield prefix, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _subparsers(sub, (*prefix, name))


PARSERS = list(_subparsers(build_parser()))


@pytest.mark.parametrize("path,parser", PARSERS, ids=[" ".join(p) or "leadline" for p, _ in PARSERS])
def test_every_flag_has_a_help_text_with_its_default(path, parser):
    text = parser.format_help()
    for action in parser._actions:
        if not action.option_strings or isinstance(action, argparse._HelpAction):
            continue
        flag = action.option_strings[0]
        assert action.help, f"leadline {' '.join(path)} {flag} has no help text"
        if action.default not in (None, False, argparse.SUPPRESS) and not action.required:
            shown = parser._get_formatter()._expand_help(action) if action.help else ""
            assert "default" in shown.lower(), f"leadline {' '.join(path)} {flag}: the default is not shown"
    assert parser.description or not path, f"leadline {' '.join(path)} has no description"
    assert "usage:" in text


def test_create_key_help_lists_every_scope():
    done = subprocess.run([sys.executable, "-m", "leadline.cli", "admin", "create-key", "--help"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    flat = " ".join(done.stdout.split())
    for scope in SCOPES:
        assert scope in flat, scope


def test_admin_data_dir_is_accepted_before_and_after_the_action():
    parser = build_parser()
    before = parser.parse_args(["admin", "--data-dir", "/a", "list-keys", "--org", "x"])
    after = parser.parse_args(["admin", "list-keys", "--org", "x", "--data-dir", "/b"])
    neither = parser.parse_args(["admin", "list-keys", "--org", "x"])
    assert (before.data_dir, after.data_dir, neither.data_dir) == ("/a", "/b", ".leadline")


def test_building_the_parser_imports_no_domain_code():
    # Lazy imports keep `--help` and every admin command's start cheap: no app, no GraphQL schema, no
    # web framework before the chosen command needs them.
    code = ("import sys; from leadline.cli import build_parser; build_parser(); "
            "print(sorted(m for m in sys.modules if m.startswith(('strawberry', 'aiohttp', 'leadline.schema', "
            "'leadline.rest_compat', 'leadline.app', 'leadline.services'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
