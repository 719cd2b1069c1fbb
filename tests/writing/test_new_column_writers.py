"""Writers at once across a change of the table's columns (docs/new_columns.md): a load that adds `channel`
and one that does not (or that adds it too), on other days, made to meet on purpose. One load's rows are
held inside its Delta transaction (tests/support/holding.py) while the other commits; let go, it loses a
write conflict and retries on the table as the other left it. Either order: no column is lost, no day is
written without a column its file has, and each commit's lineage says what it really did (columns_added
only in the commit that added the column, columns_absent for a day whose file lacks it)."""
import datetime as dt
import re
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from check_day import check_day
from check_month import check_month, month_states
from conftest import table_rows
from holding import held, release, wait_held
from load_day import load_day, load_retrying
from shoptoolkit.storage.project_paths import day_file
from shoptoolkit.table import orders_table
from shoptoolkit.table.delta_table import history_frame
from shoptoolkit.table.load_lineage import commit_loads
from shoptoolkit.till import in_python

SEP_16, SEP_20, SEP_21 = dt.date(2026, 9, 16), dt.date(2026, 9, 20), dt.date(2026, 9, 21)
MONTH_OK = (True, ["ok 2026-09: all 30 days match their files, 130 orders"])
APPEND = "DELTA_CONCURRENT_APPEND.WITHOUT_HINT"  # the winner added files of the table this write reads
METADATA = "DELTA_METADATA_CHANGED"  # the winner gave the table a column


def with_channel(day) -> list:
    """day's file given a channel column (web, store, ...); the values in the file's order."""
    lines = day_file(day).read_text().splitlines()
    values = ["web" if number % 2 else "store" for number in range(1, len(lines))]
    day_file(day).write_text("".join(f"{line},{more}\n" for line, more in zip(lines, ["channel", *values])))
    return values


def orders_in(day) -> int:
    return len(day_file(day).read_text().splitlines()) - 1


def holding_day(monkeypatch, hold, day, before_transaction=False):
    """Loads of day in this process are held until release(hold) (HOLD/<day>.held says one waits): inside
    their Delta transaction, its rows waiting at holding.held's UDF, or before_transaction, after the load's
    checks and before its write starts. Other days' loads and, once released, the retry pass at once."""
    def read_orders(spark, found, on):
        frame = in_python.read_orders(spark, found, on)
        if on != day or (hold / "go").exists():
            return frame
        if not before_transaction:
            return held(frame, hold, str(day))
        (hold / f"{day}.held").touch()
        while not (hold / "go").exists():
            threading.Event().wait(0.05)
        return frame
    hold.mkdir()
    monkeypatch.setattr("load_day.read_orders", read_orders)


def race(spark, hold, held_run, other_run, mode="add") -> tuple:
    """The load of held_run, held (holding_day), while other_run's load commits; then let go. Its lines
    (retries and the load's) and the other's line."""
    shown = []
    with ThreadPoolExecutor(1) as pool:
        loading = pool.submit(load_retrying, spark, held_run, shown.append,
                              load=lambda spark, run_date: load_day(spark, run_date, on_new_column=mode))
        wait_held(hold, 1, lambda: [loading.result()] if loading.done() else [])
        other = load_day(spark, other_run, on_new_column="add")
        release(hold)
        shown.append(loading.result(timeout=300))
    return shown, other


def retried(lines, run_date, conflict) -> bool:
    """One lost conflict of that class, then the load's line."""
    return len(lines) == 2 and bool(re.fullmatch(
        rf"run {run_date} lost a write conflict \({conflict}\); attempt 2 of 8 in \d+\.\d s", lines[0]))


def lineage_of(spark, newest: int) -> dict:
    """{day: (columns_added, columns_absent)} of the newest commits' lineage, the older one's first."""
    found = history_frame(spark, newest).select("version", "userMetadata").collect()
    return {entry["day"]: (entry.get("columns_added"), entry.get("columns_absent"))
            for commit in sorted(found, key=lambda commit: commit.version)
            for entry in commit_loads(commit.userMetadata or "")}


def columns(spark) -> list:
    return [field.name for field in orders_table(spark).schema.fields]


def day_lines(spark, *days) -> list:
    """check_month's line for each of days (its states' messages), and check_day's, which must agree."""
    states = {state.day: state.message for state in month_states(spark, "2026-09")}
    lines = [states[day] for day in days]
    assert [check_day(spark, str(day + dt.timedelta(days=1)))[1] for day in days] == lines
    return lines


def ok(day, absent=False) -> str:
    line = f"ok {day}: {orders_in(day)} rows for the file's {orders_in(day)} orders, 0 missing"
    return line + ("; no channel in the file (null in the table)" if absent else "")


def test_the_adder_wins_and_the_other_retries_on_the_new_schema(september, spark, monkeypatch):
    values = with_channel(SEP_20)
    holding_day(monkeypatch, september / "hold", SEP_16)
    lines, other = race(spark, september / "hold", "2026-09-17", "2026-09-21")
    assert other == f"run 2026-09-21 loaded {SEP_20}: {orders_in(SEP_20)} rows, orders_daily has 130"
    assert retried(lines, "2026-09-17", METADATA), lines
    assert lines[1] == f"run 2026-09-17 loaded {SEP_16}: {orders_in(SEP_16)} rows, orders_daily has 130"
    assert columns(spark)[-1] == "channel"
    assert [row[-1] for row in table_rows(spark, SEP_20)] == values
    assert lineage_of(spark, 2) == {str(SEP_20): ({"channel": "STRING"}, None), str(SEP_16): (None, ["channel"])}
    assert day_lines(spark, SEP_16, SEP_20) == [ok(SEP_16, absent=True), ok(SEP_20)]
    assert check_month(spark, "2026-09") == MONTH_OK


def test_the_other_wins_and_the_adder_retries_and_adds_the_column(september, spark, monkeypatch):
    values = with_channel(SEP_20)
    holding_day(monkeypatch, september / "hold", SEP_20)
    lines, other = race(spark, september / "hold", "2026-09-21", "2026-09-17")
    assert other == f"run 2026-09-17 loaded {SEP_16}: {orders_in(SEP_16)} rows, orders_daily has 130"
    assert retried(lines, "2026-09-21", APPEND), lines
    assert columns(spark)[-1] == "channel"
    assert [row[-1] for row in table_rows(spark, SEP_20)] == values
    assert lineage_of(spark, 2) == {str(SEP_16): (None, None), str(SEP_20): ({"channel": "STRING"}, None)}
    assert day_lines(spark, SEP_16, SEP_20) == [ok(SEP_16, absent=True), ok(SEP_20)]
    assert check_month(spark, "2026-09") == MONTH_OK


def test_two_loads_adding_one_column_add_it_once(september, spark, monkeypatch):
    with_channel(SEP_20), with_channel(SEP_21)
    holding_day(monkeypatch, september / "hold", SEP_21)
    lines, other = race(spark, september / "hold", "2026-09-22", "2026-09-21")
    assert retried(lines, "2026-09-22", METADATA), lines
    assert columns(spark).count("channel") == 1
    assert lineage_of(spark, 2) == {str(SEP_20): ({"channel": "STRING"}, None), str(SEP_21): (None, None)}
    assert day_lines(spark, SEP_20, SEP_21) == [ok(SEP_20), ok(SEP_21)]
    assert check_month(spark, "2026-09") == MONTH_OK


GAP = {  # a load held after its checks, before its transaction: (its run, day, mode, whether its file has channel)
    "a load without the column": ("2026-09-17", SEP_16, "add", False),
    "a load rescuing the column": ("2026-09-22", SEP_21, "rescue", True),
}


@pytest.mark.parametrize("case", GAP)
def test_a_column_added_after_a_loads_check_and_before_its_transaction_is_a_conflict_it_retries(
        case, september, spark, monkeypatch):
    """Delta sees no conflict here (the load's transaction began after the adder's commit), but the load was
    checked against the columns before: its commit is taken back and the load retried on the columns now."""
    run_date, day, mode, has_channel = GAP[case]
    with_channel(SEP_20)
    values = with_channel(day) if has_channel else None
    holding_day(monkeypatch, september / "hold", day, before_transaction=True)
    lines, _ = race(spark, september / "hold", run_date, "2026-09-21", mode)
    assert retried(lines, run_date, "COLUMNS_CHANGED_BEFORE_COMMIT"), lines
    assert lines[1] == f"run {run_date} loaded {day}: {orders_in(day)} rows, orders_daily has 130"
    newest = history_frame(spark, 1).first().userMetadata
    assert [(entry.get("columns_added"), entry.get("columns_absent")) for entry in commit_loads(newest)] == [
        (None, None if has_channel else ["channel"])]
    if has_channel:  # in the column, not in _rescued_data
        assert [row[5] for row in table_rows(spark, day)] == values
    assert day_lines(spark, day, SEP_20) == [ok(day, absent=not has_channel), ok(SEP_20)]
    assert check_month(spark, "2026-09") == MONTH_OK
