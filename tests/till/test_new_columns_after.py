"""After the till's file gained a column (docs/new_columns.md): September's backfill run again as the course
runs it, with --reprocess changed, in each of the three settings, `channel` in the files from the 20th on (so
the 11 days from the 20th on load again, the 19 before it are skipped as ok); a restore of a day to a version
before the change; history.py's mark of the commit that changed the schema; upkeep.py's compaction and
VACUUM across the change; and other clients reading the evolved table (delta-rs, plain Spark + Delta,
the course's own code as it is written)."""
import datetime as dt
import io
import json
import re
import runpy
import shutil
import sys
import time
from contextlib import redirect_stdout

import nbformat
import pytest

import upkeep
from backfill import main as backfill_main
from check_day import check_day
from check_month import check_month, main as check_month_main
from conftest import ROOT, table_rows, table_version
from delta_session import orders_table
from history import history_line, main as history_main, table_history
from make_days import DAY_COUNTS, FIRST_DAY
from restore_day import main as restore_main
from shoptoolkit.dates import run_dates
from shoptoolkit.storage.project_paths import day_file, root_at, table_path
from shoptoolkit.till.in_python import fingerprint
from shoptoolkit.truth.day_truth import day_states

CHANGE, LAST = dt.date(2026, 9, 20), dt.date(2026, 9, 30)  # the till's update: channel from the 20th on
COURSE = ["2026-09-02", "2026-10-01"]  # the course's backfill: the 30 runs that load September
CHANGED = run_dates(CHANGE, LAST)  # the 11 days whose files gained channel: --reprocess changed runs theirs
HEADER = "order_id,customer_id,amount,ordered_at"
TILL = ["order_id", "customer_id", "amount", "ordered_at", "order_date"]
ALL_OK = (True, ["ok 2026-09: all 30 days match their files, 130 orders"])


def gain_channel() -> None:
    """The till's update: from the 20th on, each file gains channel, its orders web and store by turns."""
    for day in run_dates(CHANGE, LAST):
        header, *rows = day_file(day).read_text().splitlines()
        lines = [f"{header},channel", *(f"{row},{('web', 'store')[place % 2]}" for place, row in enumerate(rows))]
        day_file(day).write_text("".join(f"{line}\n" for line in lines))


def channels(day) -> list:
    """The channel of each order of day's file, in order."""
    return [line.rsplit(",", 1)[1] for line in day_file(day).read_text().splitlines()[1:]]


def orders_on(day) -> int:
    return DAY_COUNTS[(day - FIRST_DAY).days]


def run_lines(printed: str) -> list:
    """backfill.py's lines without their times."""
    return [re.sub(r" \(\d+\.\d+ s\)$", "", line) for line in printed.splitlines()]


def loaded_line(place: int, day) -> str:
    count = orders_on(day)
    return (f"{place}/{len(CHANGED)} run {day + dt.timedelta(days=1)} loaded {day}: {count} rows, orders_daily has "
            f"130; ok {day}: {count} rows for the file's {count} orders, 0 missing")


def course_backfill(mode: str) -> tuple:
    """(exit code, lines) of the course's backfill with --reprocess changed and --on-new-column mode, run in
    this session: the runs of the days whose files changed, the others skipped (ok)."""
    with redirect_stdout(io.StringIO()) as printed:
        code = backfill_main([*COURSE, "--reprocess", "changed", "--on-new-column", mode])
    return code, run_lines(printed.getvalue())


def column_names(spark) -> list:
    return [field.name for field in orders_table(spark).schema.fields]


@pytest.fixture(scope="module")
def evolved_template(spark, september_template, tmp_path_factory):
    """September as loaded (september_template), its files then given channel from the 20th on and the
    course's backfill run again with --reprocess changed --on-new-column add: what it printed kept in
    backfill.out."""
    folder = tmp_path_factory.mktemp("evolved")
    for name in ("landing", "lake"):
        shutil.copytree(september_template / name, folder / name)
    with root_at(folder):
        gain_channel()
        code, lines = course_backfill("add")
    (folder / "backfill.out").write_text(json.dumps([code, lines]), encoding="utf-8")
    return folder


@pytest.fixture
def evolved(spark, evolved_template, tmp_path, monkeypatch):
    """A fresh copy of evolved_template, orders_daily its table."""
    for name in ("landing", "lake"):
        shutil.copytree(evolved_template / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    orders_table(spark)
    return tmp_path


def test_add_loads_september_across_the_change_and_every_day_checks_ok(evolved, evolved_template, spark, capsys):
    code, lines = json.loads((evolved_template / "backfill.out").read_text(encoding="utf-8"))
    assert code == 0 and lines == [*(loaded_line(place, day) for place, day in enumerate(CHANGED, start=1)),
                                   "ran 11 runs, 0 failed, 19 skipped; orders_daily has 30 days, 130 orders"]
    assert column_names(spark) == [*TILL, "channel"]
    assert [row[-1] for row in table_rows(spark, CHANGE)] == channels(CHANGE)
    assert {row[-1] for row in table_rows(spark) if row[4] < CHANGE} == {None}
    assert check_month(spark, "2026-09") == ALL_OK
    assert check_month_main(["2026-09", "--today", "2026-10-01"]) == 0
    month = capsys.readouterr().out.splitlines()
    assert (month[0], month[-1]) == ("September 2026: 30 ok", ALL_OK[1][0])


def test_rescue_loads_september_across_the_change_and_every_day_checks_ok(september, spark, capsys):
    gain_channel()
    code, lines = course_backfill("rescue")
    assert code == 0 and lines == [*(loaded_line(place, day) for place, day in enumerate(CHANGED, start=1)),
                                   "ran 11 runs, 0 failed, 19 skipped; orders_daily has 30 days, 130 orders"]
    assert column_names(spark) == [*TILL, "_rescued_data"]
    assert [row[-1] for row in table_rows(spark, CHANGE)] == [f'{{"channel":"{one}"}}' for one in channels(CHANGE)]
    assert history_line(table_history(spark, 11)[-1]).endswith(" | adds column _rescued_data STRING")
    assert check_month(spark, "2026-09") == ALL_OK
    assert check_month_main(["2026-09", "--today", "2026-10-01"]) == 0
    month = capsys.readouterr().out.splitlines()
    assert (month[0], month[-1]) == ("September 2026: 30 ok", ALL_OK[1][0])


def test_fail_refuses_each_day_from_the_change_on_in_one_line_and_none_of_them_lands(september, spark):
    gain_channel()
    before, version = table_rows(spark), table_version(spark)
    code, lines = course_backfill("fail")
    refused = [f"{place}/11 run {day + dt.timedelta(days=1)} failed: landing/orders/{day}.csv line 1: unexpected "
               f"column channel (expected {HEADER}); --on-new-column add or rescue (or SHOP_ON_NEW_COLUMN) "
               f"would load it"
               for place, day in enumerate(CHANGED, start=1)]
    runs = ", ".join(str(day + dt.timedelta(days=1)) for day in CHANGED)
    assert code == 1 and lines == [*refused, f"ran 11 runs, 11 failed ({runs}), 19 skipped; orders_daily has 30 "
                                             f"days, 130 orders"]
    assert (table_rows(spark), table_version(spark), column_names(spark)) == (before, version, TILL)


BEFORE = 29  # the september template's newest version: the table before the change


def test_a_restore_to_a_version_before_the_change_keeps_the_schema_and_nulls_the_days_column(evolved, spark, capsys):
    day = dt.date(2026, 9, 25)
    then = table_rows(spark, day)
    assert restore_main([str(day + dt.timedelta(days=1)), "--version", str(BEFORE)]) == 0
    count = orders_on(day)
    assert capsys.readouterr() == (
        f"restored {day} from version {BEFORE} ({count} rows -> {count}); orders_daily has 130, version 41; "
        f"channel is null on {day}: version {BEFORE} had no such column, and Delta cannot drop a column for "
        f"some days only\n", "")
    assert column_names(spark) == [*TILL, "channel"]
    assert table_rows(spark, day) == [(*row[:-1], None) for row in then]
    assert [row[-1] for row in table_rows(spark, CHANGE)] == channels(CHANGE)
    first = min(row[0] for row in then)
    assert check_day(spark, str(day + dt.timedelta(days=1))) == (
        False, f"PROBLEM {day}: {count} rows for the file's {count} orders, {count} differing "
               f"({', '.join(str(row[0]) for row in then[:5])}, ...); order {first}: channel null in the table, "
               f"{channels(day)[0]} in the file")


def test_history_marks_the_commit_that_changed_the_schema(evolved, september_template, spark, capsys):
    """The course's backfill again, channel from the 20th on: versions 30 to 40 reload the 20th to the 30th,
    the 20th's load at 30 adding the column; version 29 is September's load of the 30th, its file then."""
    assert history_main(["--limit", "12"]) == 0
    with root_at(september_template):
        before = fingerprint(day_file(LAST))[1][:12]
    assert capsys.readouterr().out.splitlines() == [
        f"version {30 + (day - CHANGE).days} | WRITE | order_date = DATE'{day}' | {orders_on(day)} | "
        f"run {day + dt.timedelta(days=1)} | file {fingerprint(day_file(day))[1][:12]}"
        + (" | adds column channel STRING" if day == CHANGE else "")
        for day in reversed(CHANGED)] + [
        f"version 29 | WRITE | order_date = DATE'{LAST}' | {orders_on(LAST)} | run 2026-10-01 | file {before}"]


def test_upkeep_compacts_and_vacuums_across_the_change_and_every_day_keeps_its_lineage(evolved, spark):
    def answers():
        """Each day's state, check line and lineage, the month's check, every row."""
        return ([(found.day, found.state, found.message, found.loaded) for found in day_states(spark, FIRST_DAY, LAST)],
                check_month(spark, "2026-09"), table_rows(spark))
    before = answers()
    lines = upkeep.upkeep(spark, "2026-10-01", window=dt.timedelta(seconds=1), vacuum=False)
    assert re.sub(r" \([\d,]+ bytes\)", "", lines[0]) == "compacted 2026-09: 30 days in 30 files -> 1 file; version 41"
    time.sleep(1.5)  # the files the reloads and the compaction replaced are now older than the window
    on_disk = upkeep.data_files()
    assert re.fullmatch(rf"VACUUM deleted {on_disk - 1} of {on_disk} data files; undo window 1 second: .*",
                        upkeep.upkeep(spark, "2026-10-01")[-1])
    assert answers() == before and before[1] == ALL_OK
    assert before[0][9][1:3] == ("ok", "ok 2026-09-10: 3 rows for the file's 3 orders, 0 missing; "
                                      "no channel in the file (null in the table)")
    assert column_names(spark) == [*TILL, "channel"] and upkeep.data_files() == 1
    assert [history_line(entry) for entry in table_history(spark, 4) if entry["version"] == 41] == [(
        "version 41 | WRITE | order_date IN 30 days 2026-09-01 .. 2026-09-30 | 130 | "
        "upkeep: compacted 2026-09, the lineage of 30 days kept")]  # no mark: a compaction changes no schema


def test_delta_rs_and_plain_spark_read_the_new_column_and_the_old_days_nulls(evolved, spark):
    deltalake = pytest.importorskip("deltalake")
    read = deltalake.DeltaTable(str(table_path())).to_pyarrow_table()
    assert read.column_names == [*TILL, "channel"]
    rows = sorted(zip(*(read.column(name).to_pylist() for name in ("order_id", "order_date", "channel"))))
    expected = sorted((row[0], row[4], row[-1]) for row in table_rows(spark))
    assert rows == expected and len(rows) == 130
    plain = spark.read.format("delta").load(str(table_path()))
    assert plain.columns == [*TILL, "channel"]
    assert sorted((row.order_id, row.order_date, row.channel) for row in plain.collect()) == expected


# The course notebook's cells that read the table, take a late order and check the month (not its make_days
# --clean and backfills, which start September over, nor its runs at once): by the start of their text.
NOTEBOOK_CELLS = ("import sys", "spark = delta_spark", "orders_table(spark)", "with open(day_file", "from load_day",
                  "from check_day", "from history", "import check_month")


def test_the_course_code_as_written_runs_on_the_evolved_table(evolved, spark, capsys, monkeypatch):
    """The notebook's cells, their text as it is, in this session (a kernel's own); then the course's
    script of plain PySpark on the name (tests/support/course_month.py), as test_table_name.py runs it."""
    notebook = nbformat.read(ROOT / "notebooks" / "course.ipynb", as_version=4)
    cells = [cell.source for cell in notebook.cells
             if cell.cell_type == "code" and cell.source.startswith(NOTEBOOK_CELLS)]
    assert len(cells) == 9
    namespace = {}
    for source in cells:
        exec(compile(source, "course.ipynb", "exec"), namespace)
    printed = capsys.readouterr().out.splitlines()
    header = next(line for line in printed if "order_id" in line)
    assert re.sub(r"\s", "", header) == "|order_id|customer_id|amount|ordered_at|order_date|channel|"
    first_five = printed[printed.index(header) + 2:printed.index(header) + 7]
    assert [line.split("|")[1].strip() for line in first_five] == ["2001", "2002", "2003", "2004", "2005"]
    assert {line.split("|")[-2].strip() for line in first_five} == {"NULL"}  # before the change
    late = printed.index("run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has 131")
    assert printed[late + 1:late + 4] == [
        "ok 2026-09-15: 4 rows for the file's 4 orders, 0 missing; no channel in the file (null in the table)",
        "version 41 | WRITE | order_date = DATE'2026-09-15' | 4 | run 2026-09-16 | file fe704980722a",
        f"version 40 | WRITE | order_date = DATE'{LAST}' | 6 | run 2026-10-01 | "
        f"file {fingerprint(day_file(LAST))[1][:12]}"]
    assert printed[late + 4] == "September 2026: 30 ok" and printed[-1] == ALL_OK[1][0].replace("130", "131")
    monkeypatch.setattr(sys, "argv", ["course_month.py", "2026-09"])
    runpy.run_path(str(ROOT / "tests" / "support" / "course_month.py"), run_name="__main__")
    assert capsys.readouterr().out == "2026-09: 30 days, 131 orders\n"
