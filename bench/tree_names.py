"""The few package names a bench takes from whichever tree is first on the path: the package in rooms
(since issue 63), or the flat package before it, so that a bench can time this tree beside an older one.

    from tree_names import day_file, root_at, run_dates, table_path
"""
try:
    from shoptoolkit.dates import run_dates
    from shoptoolkit.storage.project_paths import day_file, root_at, table_path
except ImportError:  # a tree from before the rooms
    from shoptoolkit.project_paths import day_file, root_at, table_path  # noqa: F401
    from shoptoolkit.run_args import run_dates  # noqa: F401
