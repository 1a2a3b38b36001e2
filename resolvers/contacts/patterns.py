"""The regular expressions a contact filter accepts: a subset in which catastrophic backtracking cannot
be written.

The embedded database matches `$regex` with Python's backtracking engine in its own process, where a
slow match holds every other organisation's queries (and it does not enforce `maxTimeMS`). So the
accepted syntax is restricted by construction, on the parsed pattern:
- a quantifier applies to one character (a literal, a class such as `[a-z]` or `\\d`, or `.`), never
  to a group: no `(ab)+`, no `(a|aa)*`;
- at most two quantifiers in the whole pattern, at most one of them unbounded (`*`, `+`, `{n,}`),
  and a bounded one repeats at most 16 times;
- no backreferences, lookarounds, conditionals or atomic groups.
Anchors, alternation (`^(ada|grace) `), groups, classes and escapes stay as they are. With one
unbounded and one bounded quantifier on single characters, a search of a 500-character value takes
at most about n² × 17 steps (tests/robustness/test_regex.py times the worst shapes).
"""
from __future__ import annotations

try:  # Python 3.11+
    import re._constants as _c
    import re._parser as _p
except ImportError:  # pragma: no cover
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

MAX_QUANTIFIERS = 2
MAX_UNBOUNDED = 1
MAX_BOUNDED_REPEAT = 16

_SINGLE = {_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN}
_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)}
_FORBIDDEN = {_c.GROUPREF: "backreferences", _c.ASSERT: "lookarounds", _c.ASSERT_NOT: "lookarounds",
              _c.GROUPREF_EXISTS: "conditionals", getattr(_c, "ATOMIC_GROUP", _c.GROUPREF): "atomic groups"}


def unsafe(pattern: str) -> str | None:
    """Why the (compilable) pattern is refused, or None when it is accepted."""
    counts = {"all": 0, "unbounded": 0}
    try:
        return _walk(_p.parse(pattern), counts)
    except RecursionError:
        return "the pattern is nested too deeply"


def _walk(items, counts: dict[str, int]) -> str | None:
    for op, arg in items:
        if op in _FORBIDDEN:
            return f"{_FORBIDDEN[op]} are not allowed"
        if op in _REPEATS:
            low, high, body = arg
            if len(body) != 1 or body[0][0] not in _SINGLE:
                return "a quantifier may follow one character or class only, not a group such as (a+)+ or (a|b)*"
            counts["all"] += 1
            if high == _c.MAXREPEAT:
                counts["unbounded"] += 1
            elif high > MAX_BOUNDED_REPEAT:
                return f"a bounded repeat is at most {{0,{MAX_BOUNDED_REPEAT}}}"
            if counts["all"] > MAX_QUANTIFIERS or counts["unbounded"] > MAX_UNBOUNDED:
                return (f"at most {MAX_QUANTIFIERS} quantifiers, at most {MAX_UNBOUNDED} of them unbounded "
                        "(*, +, {n,}), are allowed")
        elif op == _c.SUBPATTERN:
            if (problem := _walk(arg[-1], counts)) is not None:
                return problem
        elif op == _c.BRANCH:
            for branch in arg[1]:
                if (problem := _walk(branch, counts)) is not None:
                    return problem
    return None
