"""The toolkit's error type: a problem the user can fix, told in one line.

    from shoptoolkit.errors import ToolkitError
    raise ToolkitError("no file landing/orders/2026-09-20.csv for run 2026-09-21")

A UsageError is one found in what the user asked before any work (a root the toolkit refuses): scripts
exit 2 on it, as argparse does on a wrong option.

How any other error (Spark's, Delta's, a Connect server's, a store's) becomes one line:
engine/spark_errors.py; how a script prints it and exits: run_args.run_main.
"""


class ToolkitError(Exception):
    """A problem the user can fix, told in one line; scripts print it and exit 1."""


class UsageError(ToolkitError):
    """A problem in what was asked (a root the toolkit refuses), found before any work; scripts exit 2."""
