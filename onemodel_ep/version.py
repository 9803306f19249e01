"""The package's version, in a module of its own so that any module can read it without importing the
package (whose __init__ imports most modules)."""

from __future__ import annotations

__version__ = "0.1.0"
