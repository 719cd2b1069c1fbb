"""Whether a Delta log can be read, checked before Spark reads it: a damaged log is refused in one line;
and the newest commit's version, from the log's file names.

    from shoptoolkit.table.delta_log_check import delta_log_problem, newest_commit
    delta_log_problem(table_path() / "_delta_log")     # '' when it reads, else why not
    newest_commit(table_path() / "_delta_log")         # 41, or -1 without a commit
"""
import json
import re
from fnmatch import fnmatchcase

from shoptoolkit.storage.project_paths import shown

COMMIT = re.compile(r"\d{20}\.json")  # a commit's file; a writer's temporary file and a compacted range never match
# The commit files this process has read whole as JSON, by path, size and time: a commit file appears whole and
# never changes, so each is read once a process, not at every look at the table (on a bucket, each read is
# requests). A file changed since (a damaged copy put in its place) has another size or time and is read again.
READ_WHOLE = set()


def newest_commit(log) -> int:
    """The newest commit's version, -1 without one. A commit file appears whole or not at all (a rename on a
    folder, a conditional put on a bucket), and the newest is never cleaned up, so its name is the table's
    version: what DESCRIBE HISTORY's first row says, without a Spark job."""
    return max((int(path.name[:20]) for path in log.glob("*.json") if COMMIT.fullmatch(path.name)), default=-1)


def delta_log_problem(log) -> str:
    """Why the Delta log cannot be read, or '': no commit at all, or a commit Delta would read is not JSON."""
    try:
        entries = list(log.iterdir())  # one listing for the commits and the checkpoints
    except (FileNotFoundError, NotADirectoryError):
        entries = []
    commits = sorted(path for path in entries if COMMIT.fullmatch(path.name))
    if not commits:
        return (f"no commits in {shown(log)}; restore it from a backup, or delete the folder "
                f"if its first load was interrupted")
    checkpoints = [int(path.name[:20]) for path in entries if fnmatchcase(path.name, "[0-9]*.checkpoint*.parquet")]
    newest_checkpoint = max(checkpoints, default=-1)
    for path in commits:
        if int(path.name[:20]) > newest_checkpoint:
            problem = commit_problem(path)
            if problem:
                return f"commit {shown(path)} {problem} (damaged); restore it from a backup"
    return ""


def commit_problem(path) -> str:
    """not_json_line of a commit file, read only when this process has not yet read it whole (READ_WHOLE)."""
    stat = path.stat()
    seen = (str(path), stat.st_size, stat.st_mtime_ns)
    if seen in READ_WHOLE:
        return ""
    problem = not_json_line(path)
    if not problem:
        READ_WHOLE.add(seen)
    return problem


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
