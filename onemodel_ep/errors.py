"""UsageError: a mistake of the user's on the command line (a bad path, option value or model).

It lives in a module of its own so that the subcommands (bench.py, diff.py) can raise it without importing
cli.py, which imports them.
"""

from __future__ import annotations


class UsageError(Exception):
    """A user error: `onemodel` prints it as one line, `onemodel: error: ...`, and exits with status 2."""
