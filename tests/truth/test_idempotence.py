"""Running again changes nothing: the month twice, or one day five times, ends as one run did,
and the history holds one WRITE per run and nothing else."""
from fingerprint import content_sha256
from history import table_history
from load_day import load_day


def test_month_backfilled_twice_is_the_same_as_once(september, spark):
    from backfill import backfill
    once = content_sha256(spark)
    assert backfill(spark, "2026-09-02", "2026-10-01", show=lambda line: None) == (
        [], "ran 30 runs, 0 failed; orders_daily has 30 days, 130 orders")
    assert content_sha256(spark) == once
    history = table_history(spark, 100)
    assert len(history) == 60
    assert [entry["version"] for entry in history] == list(range(59, -1, -1))
    assert {entry["operation"] for entry in history} == {"WRITE"}
    days = [entry["predicate"] for entry in reversed(history)]
    assert days == 2 * [f"order_date = DATE'2026-09-{day:02d}'" for day in range(1, 31)]


def test_one_day_loaded_five_times_is_the_same_as_once(september, spark):
    once = content_sha256(spark)
    for _ in range(5):
        assert load_day(spark, "2026-09-16") == "run 2026-09-16 loaded 2026-09-15: 3 rows, orders_daily has 130"
    assert content_sha256(spark) == once
    newest = table_history(spark, 6)
    assert [(e["operation"], e["predicate"], e["rows_written"]) for e in newest[:5]] == 5 * [
        ("WRITE", "order_date = DATE'2026-09-15'", 3)]
    assert newest[5]["predicate"] == "order_date = DATE'2026-09-30'"  # the backfill's last run, before them
    assert {e["lineage"]["run_date"] for e in newest[:5]} == {"2026-09-16"}
