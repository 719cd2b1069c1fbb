"""Whether a Delta log can be read, checked before Spark reads it: a damaged log is refused in one line;
and the newest commit's version, from the log's file names.

    from shoptoolkit.delta_log_check import delta_log_problem, newest_commit
    delta_log_problem(table_path() / "_delta_log")     # '' when it reads, else why not
    newest_commit(table_path() / "_delta_log")         # 41, or -1 without a commit
"""
import json
import re

from shoptoolkit.project_paths import shown

COMMIT = re.compile(r"\d{20}\.json")  # a commit's file; a writer's temporary file and a compacted range never match


def newest_commit(log) -> int:
    """The newest commit's version, -1 without one. A commit file appears whole or not at all (a rename on a
    folder, a conditional put on a bucket), and the newest is never cleaned up, so its name is the table's
    version: what DESCRIBE HISTORY's first row says, without a Spark job."""
    return max((int(path.name[:20]) for path in log.glob("*.json") if COMMIT.fullmatch(path.name)), default=-1)


def delta_log_problem(log) -> str:
    """Why the Delta log cannot be read, or '': no commit at all, or a commit Delta would read is not JSON."""
    commits = sorted(path for path in log.glob("*.json") if COMMIT.fullmatch(path.name))
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
