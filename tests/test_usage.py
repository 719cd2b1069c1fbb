"""Bad arguments are usage errors (exit 2) found before any Spark session starts."""
import pytest

from conftest import run_script


@pytest.mark.parametrize("script, args, message", [
    ("load_day.py", ["2026-13-01"], "argument run_date: '2026-13-01' is not a calendar date"),
    ("load_day.py", ["yesterday"], "argument run_date: 'yesterday' is not a date in the form YYYY-MM-DD"),
    ("load_day.py", [""], "argument run_date: '' is not a date in the form YYYY-MM-DD"),
    ("check_day.py", ["2026-02-30"], "argument run_date: '2026-02-30' is not a calendar date"),
    ("check_month.py", ["2026-9"], "argument month: '2026-9' is not a month in the form YYYY-MM"),
    ("check_month.py", ["2026-13"], "argument month: '2026-13' is not a month in the form YYYY-MM"),
    ("backfill.py", ["2026-10-01", "2026-09-02"], "FIRST 2026-10-01 is after LAST 2026-09-02"),
    ("backfill.py", ["2025-01-01", "2026-09-02"], "610 runs is more than a year (366); add --allow-long"),
    ("history.py", ["--limit", "0"], "--limit must be 1 or more, not 0"),
    ("load_day.py", ["2026-09-16", "--fast"], "unrecognized arguments: --fast"),
])
def test_bad_arguments_are_usage_errors_before_spark(tmp_path, script, args, message):
    done = run_script(script, *args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"{script}: error: ") and message in last
    assert not (tmp_path / "logs").exists()  # no Spark was started
