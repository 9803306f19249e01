"""Benchmark stock ORT against OneModel EP (see onemodel_ep/bench.py); same as `onemodel bench`."""

import sys

from onemodel_ep.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
