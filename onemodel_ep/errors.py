"""The errors a user's mistake raises, and their one-line text.

UsageError, StrictModeError and DiffError live in a module of their own so that the subcommands (bench.py,
cli_diff.py) and the library (onemodel_ep.diff, onemodel_ep.strict) can raise them without importing cli.py,
which imports them.
"""

from __future__ import annotations

from collections.abc import Sequence


class UsageError(Exception):
    """A user error: `onemodel` prints it as one line, `onemodel: error: ...`, and exits with status 2."""


class StrictModeError(UsageError):
    """Strict mode refused a session: computing nodes would run outside OneModel EP (onemodel_ep.strict).

    Its text is a summary line, then one line per node (name, op type, domain, why); `nodes` holds those
    lines. `onemodel` prints it as it prints any UsageError, on stderr, and exits with status 2.
    """

    def __init__(self, summary: str, nodes: Sequence[str]) -> None:
        self.summary = summary
        self.nodes = tuple(nodes)
        super().__init__("\n".join((summary, *self.nodes)))


class DiffError(ValueError):
    """A user error (bad model, inputs or options): one line, `onemodel diff` exits with status 2."""


def one_line(e: BaseException, limit: int = 300) -> str:
    """The message of `e` on one line, cut after `limit` characters (its type's name when it has none)."""
    text = " ".join(str(e).split())
    return (text[:limit] + "...") if len(text) > limit else text or type(e).__name__
