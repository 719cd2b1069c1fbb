"""Whether a Delta log can be read, checked before Spark reads it: a damaged log is refused in one line;
and the newest commit's version, from the log's file names.

    from shoptoolkit.table.delta_log_check import delta_log_problem, log_look, newest_commit
    delta_log_problem(table_path() / "_delta_log")     # '' when it reads, else why not
    newest_commit(table_path() / "_delta_log")         # 41, or -1 without a commit
    log_look(table_path() / "_delta_log")              # ('', 41): both from one listing
"""
import json
import re
import threading
from collections import OrderedDict
from fnmatch import fnmatchcase

from shoptoolkit.storage.project_paths import shown

COMMIT = re.compile(r"\d{20}\.json")  # a commit's file; a writer's temporary file and a compacted range never match
# The commit files this process has read, parsed, by path, size and time: a commit file appears whole and never
# changes, so each is read once a process, however many looks at the table ask for it (on a bucket, each read
# is two requests). A file changed since (a damaged copy put in its place) has another size or time and is read
# again. The newest READ_KEPT are kept.
READ, READ_KEPT, READING = OrderedDict(), 1024, threading.Lock()


def commit_actions(path) -> list:
    """The actions of a commit file, each line's JSON, read once a process (READ); ValueError when a line is
    not JSON. path: as a listing gave it, so that its size and time cost no request on a bucket."""
    stat = path.stat()
    seen = (str(path), stat.st_size, stat.st_mtime_ns)
    with READING:
        actions = READ.get(seen)
    if actions is None:
        with path.open(encoding="utf-8") as lines:
            actions = [json.loads(line) for line in lines if line.strip()]
    with READING:  # runs at once in one session share the cache
        READ[seen] = actions
        READ.move_to_end(seen)
        while len(READ) > READ_KEPT:
            READ.popitem(last=False)
    return actions


def newest_commit(log) -> int:
    """The newest commit's version, -1 without one. A commit file appears whole or not at all (a rename on a
    folder, a conditional put on a bucket), and the newest is never cleaned up, so its name is the table's
    version: what DESCRIBE HISTORY's first row says, without a Spark job."""
    return max((int(path.name[:20]) for path in log.glob("*.json") if COMMIT.fullmatch(path.name)), default=-1)


def delta_log_problem(log) -> str:
    """Why the Delta log cannot be read, or '': no commit at all, or a commit Delta would read is not JSON."""
    return log_look(log)[0]


def log_look(log) -> tuple:
    """(delta_log_problem's answer, the newest commit's version or -1) from one listing of the log."""
    try:
        entries = list(log.iterdir())  # one listing for the commits and the checkpoints
    except (FileNotFoundError, NotADirectoryError):
        entries = []
    commits = sorted(path for path in entries if COMMIT.fullmatch(path.name))
    if not commits:
        return (f"no commits in {shown(log)}; restore it from a backup, or delete the folder "
                f"if its first load was interrupted"), -1
    checkpoints = [int(path.name[:20]) for path in entries if fnmatchcase(path.name, "[0-9]*.checkpoint*.parquet")]
    newest_checkpoint = max(checkpoints, default=-1)
    for path in commits:
        if int(path.name[:20]) > newest_checkpoint:
            problem = commit_problem(path)
            if problem:
                return f"commit {shown(path)} {problem} (damaged); restore it from a backup", -1
    return "", int(commits[-1].name[:20])


def commit_problem(path) -> str:
    """not_json_line of a commit file, '' when it parses (read once a process: commit_actions)."""
    try:
        commit_actions(path)
    except ValueError:
        return not_json_line(path)
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
