"""A new column on the two write paths that take several days or a big day at once (docs/new_columns.md):
backfill.py --days-per-commit over the change point lands the days in one commit under the setting in
force, each day's lineage as load_day's; the digest a big day's rows get inside Spark holds its new
columns, as the Python digest does, so another writer's change of the new column alone is a mismatch."""
import datetime as dt
import hashlib

import pytest

from backfill import main as backfill_main
from check_day import check_day
from check_month import check_month
from conftest import SEP_15, table_rows
from delta_session import history_frame, table_version
from fingerprint import table_state
from load_day import load_day, main as load_day_main
from shoptoolkit.storage.project_paths import day_file
from shoptoolkit.table.load_lineage import commit_loads
from shoptoolkit.till.in_python import read_day_file
from shoptoolkit.till.new_columns import NewColumns, using
from shoptoolkit.truth.spark_compare import table_digest
from test_new_columns import ADD, HEADER, big, columns, with_column
from test_spark_check import FILLER, in_spark, moved, orders  # noqa: F401 (in_spark: a fixture)

SEP_19, SEP_20, SEP_21 = dt.date(2026, 9, 19), dt.date(2026, 9, 20), dt.date(2026, 9, 21)
CHANNELS = ("web", "store", "")  # a row's channel, in turn
OK_MONTH = (True, ["ok 2026-09: all 30 days match their files, 130 orders"])


def with_channel(day) -> dict:
    """Give day's file a channel column (web, store, empty, in turn); {order id: its channel, None if empty}."""
    header, *rows = day_file(day).read_text().splitlines()
    values = [CHANNELS[place % len(CHANNELS)] for place in range(len(rows))]
    day_file(day).write_text("".join(f"{line}\n" for line in [f"{header},channel",
                                                               *(f"{row},{one}" for row, one in zip(rows, values))]))
    return {int(row.split(",")[0]): one or None for row, one in zip(rows, values)}


def orders_of(day) -> int:
    return len(day_file(day).read_text().splitlines()) - 1


def sha(day) -> str:
    return hashlib.sha256(day_file(day).read_bytes()).hexdigest()


def one_commit_over_the_change(spark, capsys, mode: str, days=(SEP_20, SEP_21)) -> tuple:
    """The till's channel from the 20th (in the files of days); a backfill of the 19th to the 21st in one
    commit with --on-new-column mode: (exit code, its lines, the versions it made, the newest commit's
    lineage by day, the channels of the orders of days)."""
    channels = {day: with_channel(day) for day in days}
    before = table_version(spark)
    code = backfill_main(["2026-09-20", "2026-09-22", "--days-per-commit", "3", "--on-new-column", mode])
    lines = capsys.readouterr().out.splitlines()
    entries = {entry["day"]: entry for entry in commit_loads(history_frame(spark, 1).first().userMetadata)}
    return code, lines, table_version(spark) - before, entries, channels


def run_line(place: int, day, check: str) -> str:
    run = day + dt.timedelta(days=1)
    return (f"{place}/3 run {run} loaded {day}: {orders_of(day)} rows, orders_daily has 130; ok {day}: "
            f"{orders_of(day)} rows for the file's {orders_of(day)} orders, 0 missing{check} (commit 1 of 1)")


@pytest.mark.parametrize("mode, column, kept", [
    ("add", "channel", lambda channel: channel),
    ("rescue", "_rescued_data", lambda channel: channel and f'{{"channel":"{channel}"}}'),
], ids=["add", "rescue"])
def test_one_commit_over_the_change_takes_the_column_as_the_setting_says(mode, column, kept, september, spark, capsys):
    code, lines, versions, entries, channels = one_commit_over_the_change(spark, capsys, mode)
    absent = "; no channel in the file (null in the table)" if mode == "add" else ""
    assert (code, versions) == (0, 1)
    assert lines[:3] == [run_line(1, SEP_19, absent), run_line(2, SEP_20, ""), run_line(3, SEP_21, "")]
    assert lines[3].startswith("commit 1 of 1: 3 days in one commit, 3 of 3 runs ok (")
    assert lines[4].startswith("ran 3 runs in 1 commit, 0 failed; orders_daily has 30 days, 130 orders (")
    assert columns(spark)[-1] == (column, "string")
    for day in (SEP_20, SEP_21):
        assert [row[-1] for row in table_rows(spark, day)] == [kept(channels[day][row[0]]) for row in table_rows(spark, day)]
        assert (entries[str(day)]["columns_added"], entries[str(day)].get("columns_absent")) == ({column: "STRING"}, None)
    assert {row[-1] for row in table_rows(spark, SEP_19)} == {None}
    assert "columns_added" not in entries[str(SEP_19)]
    assert entries[str(SEP_19)].get("columns_absent") == (["channel"] if mode == "add" else None)
    assert check_month(spark, "2026-09") == OK_MONTH
    assert check_day(spark, "2026-09-20", deep=True) == (
        True, f"ok {SEP_19}: {orders_of(SEP_19)} rows for the file's {orders_of(SEP_19)} orders, 0 missing{absent}")


def test_under_fail_the_days_with_the_column_are_left_out_of_the_commit_with_load_days_line(september, spark, capsys):
    before = {day: (sha(day), table_rows(spark, day)) for day in (SEP_20, SEP_21)}
    schema = columns(spark)
    code, lines, versions, entries, _ = one_commit_over_the_change(spark, capsys, "fail")
    assert (code, versions, list(entries)) == (1, 1, [str(SEP_19)])
    assert lines[0] == run_line(1, SEP_19, "")
    assert lines[1:3] == [
        f"{place}/3 run {day + dt.timedelta(days=1)} failed: landing/orders/{day}.csv line 1: unexpected column channel "
        f"(expected order_id,customer_id,amount,ordered_at); --on-new-column add or rescue (or SHOP_ON_NEW_COLUMN) "
        f"would load it (left out of commit 1 of 1)" for place, day in ((2, SEP_20), (3, SEP_21))]
    assert columns(spark) == schema
    assert {day: table_rows(spark, day) for day in before} == {day: rows for day, (_, rows) in before.items()}
    assert check_month(spark, "2026-09") == (False, [
        *(f"PROBLEM {day}: file changed since run {day + dt.timedelta(days=1)} loaded it (sha256 {before[day][0][:12]}, "
          f"now {sha(day)[:12]}); reload it with python load_day.py {day + dt.timedelta(days=1)}" for day in before),
        "PROBLEM 2026-09: 2 of 30 days do not match"])


def test_a_big_days_digest_holds_its_new_column_so_a_change_of_it_alone_is_a_mismatch(september, spark, in_spark):
    """Another writer changes only channel on one row, and the file changes too: the load's digest no longer
    speaks for the day's rows (it did, with the new column left out), so the day is `mismatch`, not `changed`."""
    day_file(SEP_15).write_bytes(big(with_column("channel", "web", "store", ""), "till"))
    assert load_day(spark, "2026-09-16", on_new_column="add").startswith(f"run 2026-09-16 loaded {SEP_15}")
    entry, = commit_loads(history_frame(spark, 1).first().userMetadata)
    with using(NewColumns("add")):
        in_python = read_day_file(SEP_15).rows_digest
    assert entry["rows_digest"] == table_digest(spark, SEP_15) == in_python
    spark.sql("UPDATE orders_daily SET channel = 'web' WHERE order_id = 2061")
    day_file(SEP_15).write_bytes(day_file(SEP_15).read_bytes().replace(b"11:47:24,web", b"11:47:24,store"))
    assert check_month(spark, "2026-09") == (False, [
        f"PROBLEM {SEP_15}: {FILLER + 3} rows for the file's {FILLER + 3} orders, 2 differing (2059, 2061); "
        f"order 2059: channel web in the table, store in the file", "PROBLEM 2026-09: 1 of 30 days do not match"])


@pytest.mark.parametrize("mode, column", [("add", "channel"), ("rescue", "_rescued_data")])
def test_a_big_day_whose_new_column_the_table_has_loads_in_one_job(mode, column, september, spark, in_spark, monkeypatch):
    """The 15th gave the table the column (or _rescued_data); the big 16th with it is read, checked and
    written in one job (held_write.py: the two-pass check is not called), its digest the Python path's."""
    import load_day as script
    day_file(SEP_15).write_bytes(with_column("channel", "web", "store", ""))
    assert load_day(spark, "2026-09-16", on_new_column=mode).endswith("orders_daily has 130")
    sep_16 = SEP_15 + dt.timedelta(days=1)
    before = 130 - orders_of(sep_16)
    lines = [f"{HEADER},channel", *(f"{line},{CHANNELS[place % 3]}" for place, line in
                                    enumerate(orders(sep_16, FILLER, 600_000)))]
    day_file(sep_16).write_text("".join(f"{line}\n" for line in lines))
    monkeypatch.setattr(script, "checked_day", None)  # the two-pass load's check is not called
    assert load_day(spark, "2026-09-17", on_new_column=mode) == (
        f"run 2026-09-17 loaded {sep_16}: {FILLER} rows, orders_daily has {before + FILLER}")
    rows = table_rows(spark, sep_16)
    assert [row[-1] for row in rows[:3]] == (["web", "store", None] if mode == "add" else [
        '{"channel":"web"}', '{"channel":"store"}', None])
    entry, = commit_loads(history_frame(spark, 1).first().userMetadata)
    with using(NewColumns(mode)):
        in_python = read_day_file(sep_16).rows_digest
    assert entry["rows_digest"] == table_digest(spark, sep_16) == in_python
    assert check_month(spark, "2026-09") == (True, [f"ok 2026-09: all 30 days match their files, {before + FILLER} orders"])


@pytest.mark.parametrize("mode, column, kept", [
    ("add", "channel", ["web", "store", None]),
    ("rescue", "_rescued_data", ['{"channel":"web"}', '{"channel":"store"}', None]),
], ids=["add", "rescue"])
def test_a_big_day_whose_load_adds_the_column_loads_in_one_job(mode, column, kept, september, spark, in_spark,
                                                                monkeypatch, capsys):
    """The table lacks the column: the big 15th is read, checked and written in one job (the two-pass check
    is not called), whose held write takes mergeSchema, so its one commit adds the column with the day's
    rows; the line, the rows and the lineage (columns_added) are the two-pass load's."""
    import load_day as script
    day_file(SEP_15).write_bytes(big(with_column("channel", "web", "store", ""), "till"))
    before = table_version(spark)
    monkeypatch.setattr(script, "checked_day", None)  # the two-pass load's check is not called
    assert load_day_main(["2026-09-16", "--on-new-column", mode]) == 0
    assert capsys.readouterr() == (
        f"run 2026-09-16 loaded {SEP_15}: {FILLER + 3} rows, orders_daily has {FILLER + 130}\n", "")
    assert table_version(spark) == before + 1 and columns(spark)[-1] == (column, "string")
    rows = table_rows(spark, SEP_15)
    assert [row[-1] for row in rows[:3]] == kept and rows[3][-1] == ("till" if mode == "add" else '{"channel":"till"}')
    assert {row[-1] for row in table_rows(spark) if row[4] != SEP_15} == {None}
    entry, = commit_loads(history_frame(spark, 1).first().userMetadata)
    assert (entry["columns_added"], entry.get("columns_absent")) == ({column: "STRING"}, None)
    with using(NewColumns(mode)):
        in_python = read_day_file(SEP_15).rows_digest
    assert entry["rows_digest"] == table_digest(spark, SEP_15) == in_python
    assert check_month(spark, "2026-09") == (True, [f"ok 2026-09: all 30 days match their files, {FILLER + 130} orders"])


def test_a_refused_line_in_a_big_file_that_adds_a_column_leaves_neither_version_nor_column(september, spark, in_spark,
                                                                                            monkeypatch, capsys):
    """The one job takes the file, its write with mergeSchema, and its tasks meet the bad line: the job fails
    and its held transaction commits nothing, rows or column; the check words the refusal."""
    from shoptoolkit.writing import held_write
    jobs, job = [], held_write.written_days
    monkeypatch.setattr(held_write, "written_days", lambda *args: jobs.append(job(*args)) or jobs[-1])
    day_file(SEP_15).write_bytes(big(with_column("discount", "1.50", "", "1.234"), "2.5"))
    before, schema = table_state(spark), columns(spark)
    assert load_day_main([*ADD, "--column-types", "discount DECIMAL(10,2)"]) == 1
    refusal = moved("landing/orders/2026-09-15.csv line 4: discount '1.234' is not a number like 19.99")
    assert capsys.readouterr() == ("", f"error: {refusal}\n")
    assert [write for write, *_ in jobs] == [None]  # the one job ran, and a line refused it
    assert (table_state(spark), columns(spark)) == (before, schema)


def test_a_commit_of_big_days_that_adds_a_column_is_one_job(september, spark, in_spark, monkeypatch, capsys):
    """The 19th to the 21st big together, the 20th's file with channel: backfill --days-per-commit writes them
    in one job (the two-pass check is not called) whose one commit adds the column, each day's lineage as
    the two-pass commit records it."""
    from shoptoolkit.writing import commit_days
    own = day_file(SEP_20).read_text().splitlines()
    day_file(SEP_20).write_text("".join(f"{line}\n" for line in [*own, *orders(SEP_20, FILLER, 500_000)]))
    with_channel(SEP_20)
    monkeypatch.setattr(commit_days, "checked_files", None)  # the two-pass way's check is not called
    code, lines, versions, entries, _ = one_commit_over_the_change(spark, capsys, "add", days=())
    absent = "; no channel in the file (null in the table)"
    assert (code, versions) == (0, 1)
    assert lines[1] == (f"2/3 run 2026-09-21 loaded {SEP_20}: {orders_of(SEP_20)} rows, orders_daily has {130 + FILLER}; "
                        f"ok {SEP_20}: {orders_of(SEP_20)} rows for the file's {orders_of(SEP_20)} orders, 0 missing "
                        f"(commit 1 of 1)")
    assert [line.endswith(f"0 missing{absent} (commit 1 of 1)") for line in lines[:3]] == [True, False, True]
    assert columns(spark)[-1] == ("channel", "string")
    assert {day: (entry.get("columns_added"), entry.get("columns_absent")) for day, entry in entries.items()} == {
        str(SEP_19): (None, ["channel"]), str(SEP_20): ({"channel": "STRING"}, None), str(SEP_21): (None, ["channel"])}
    assert check_month(spark, "2026-09") == (True, [f"ok 2026-09: all 30 days match their files, {130 + FILLER} orders"])
