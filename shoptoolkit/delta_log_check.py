"""Whether a Delta log can be read, checked before Spark reads it: a damaged log is refused in one line.

    from shoptoolkit.delta_log_check import delta_log_problem
    delta_log_problem(table_path() / "_delta_log")     # '' when it reads, else why not
"""
import json
import re

from shoptoolkit.project_paths import shown


def delta_log_problem(log) -> str:
    """Why the Delta log cannot be read, or '': no commit at all, or a commit Delta would read is not JSON."""
    commits = sorted(path for path in log.glob("*.json") if re.fullmatch(r"\d{20}\.json", path.name))
    if not commits:
        return (f"no commits in {shown(log)}; restore it from a backup, or delete the folder "
                f"if its first load was interrupted")
    checkpoints = [int(path.name[:20]) for path in log.glob("[0-9]*.checkpoint*.parquet")]
    newest_checkpoint = max(checkpoints, default=-1)
    for path in commits:
        if int(path.name[:20]) > newest_checkpoint:
            problem = not_json_line(path)
            if problem:
                return f"commit {shown(path)} {problem} (damaged); restore it from a backup"
    return ""


def not_json_line(path) -> str:
    """'line N is not JSON' for the first line of path (a Path or a storage ObjectPath) that does not parse, or ''."""
    with path.open("rb") as lines:
        for number, line in enumerate(lines, start=1):
            try:
                if line.strip():
                    json.loads(line)
            except ValueError:
                return f"line {number} is not JSON"
    return ""
