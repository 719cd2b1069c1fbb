"""The README's course walkthrough prints what the code prints today.

    pytest tests/course/test_readme.py

Every `$ ` line of the walkthrough's blocks is run in this process, in a fresh project root, and the
lines below it must be exactly what that command printed, in order; a `[... cut: N lines ...]` line
stands for N printed lines.
"""
import re
import shlex
import shutil
from pathlib import Path

import pytest

from backfill import main as backfill_main
from check_day import main as check_day_main
from check_month import main as check_month_main
from shoptoolkit.storage.project_paths import root_at
from history import main as history_main
from load_day import main as load_day_main
from make_days import main as make_days_main
from restore_day import main as restore_day_main

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## The course walkthrough"
MAINS = {"make_days.py": make_days_main, "backfill.py": backfill_main, "load_day.py": load_day_main,
         "check_day.py": check_day_main, "history.py": history_main, "check_month.py": check_month_main,
         "restore_day.py": restore_day_main}
CUT = re.compile(r"\[\.\.\. cut: (\d+) lines? \.\.\.\]")
# The one run-specific value the walkthrough prints: a run's or a backfill's time, e.g. "(2.90 s)",
# "(113.7 s)", which varies from run to run and machine to machine. It is replaced by "(N s)" on
# both sides; everything else must match as printed.
TIME = re.compile(r"\(\d+\.\d+ s\)$")
SED = re.compile(r"sed -i 's/([^/]*)/([^/]*)/' (\S+)")
TEMPLATE_COMMAND = "python backfill.py 2026-09-02 2026-10-01"
ECHO = re.compile(r'echo "([^"]*)" >> (\S+)')


def walkthrough() -> list:
    """The section's blocks in order: (prose before the block, [(command, expected lines)])."""
    text = README.read_text(encoding="utf-8").split(SECTION, 1)[1].split("\n## ", 1)[0]
    parts = text.split("```")
    blocks = []
    for prose, block in zip(parts[0::2], parts[1::2]):
        steps = []
        for line in block.strip("\n").splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line)
        blocks.append((prose, [(command, trimmed(lines)) for command, lines in steps]))
    return blocks


def trimmed(lines: list) -> list:
    while lines and not lines[-1].strip():
        lines = lines[:-1]  # a blank line between two commands separates them; it is not output
    return lines


def run(command: str, root: Path, capsys, template: Path) -> list:
    """Run one `$ ` line as a user's shell would, below root; return the lines it printed."""
    if command == TEMPLATE_COMMAND and not (root / "lake").exists():
        # The suite's September template (conftest.py) ran this very command on the same files, in this
        # session: its table and its printed lines stand for a second 30-run backfill.
        shutil.copytree(template / "lake", root / "lake")
        return (template / "backfill.out").read_text(encoding="utf-8").splitlines()
    for part in command.split(" && "):
        words = shlex.split(part)
        if words[0] == "python":
            MAINS[words[1]](words[2:])
        elif ECHO.fullmatch(part):
            line, name = ECHO.fullmatch(part).groups()
            with open(root / name, "a", encoding="utf-8") as handle:
                handle.write(line + "\n")
        elif SED.fullmatch(part):
            before, after, name = SED.fullmatch(part).groups()
            path = root / name
            path.write_text("".join(re.sub(before, after, line, count=1)
                                    for line in path.read_text().splitlines(keepends=True)))
        elif words[0] == "rm":
            (root / words[1]).unlink()
        else:
            pytest.fail(f"the walkthrough's command {part!r} is not one this test can run")
    captured = capsys.readouterr()
    return (captured.out + captured.err).splitlines()


def vacuum(spark, root: Path) -> None:
    """What the prose before the VACUUM block says was done: VACUUM ... RETAIN 0 HOURS."""
    spark.conf.set("spark.databricks.delta.retentionDurationCheck.enabled", "false")
    try:
        spark.sql(f"VACUUM delta.`{root / 'lake' / 'orders_daily'}` RETAIN 0 HOURS")
    finally:
        spark.conf.unset("spark.databricks.delta.retentionDurationCheck.enabled")


def compare(command: str, expected: list, printed: list) -> None:
    """printed must be expected line for line, a cut standing for as many lines as it says."""
    shown, at = [], 0
    for line in expected:
        cut = CUT.fullmatch(line.strip())
        if cut:
            shown.append(line)
            at += int(cut.group(1))
        else:
            shown.append(printed[at] if at < len(printed) else "<nothing printed>")
            at += 1
    normal = [TIME.sub("(N s)", line) for line in expected]
    assert [TIME.sub("(N s)", line) for line in shown] == normal and at == len(printed), (
        f"$ {command}: the README shows\n" + "\n".join(expected) + "\nthe code printed\n" + "\n".join(printed))


def test_the_walkthrough_prints_what_the_readme_shows(spark, september_template, tmp_path, capsys):
    blocks = walkthrough()
    commands = [command for _, steps in blocks for command, _ in steps]
    assert set(MAINS) <= {word for command in commands for word in command.split()}, (
        "the walkthrough should run every script this test knows; was the README's section restructured?")
    with root_at(tmp_path):
        for prose, steps in blocks:
            if "RETAIN 0 HOURS" in prose:  # a step the README tells in words: no script does it
                vacuum(spark, tmp_path)
            for command, expected in steps:
                compare(command, expected, run(command, tmp_path, capsys, september_template))
