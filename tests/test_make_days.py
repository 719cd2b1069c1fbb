import datetime as dt
import hashlib

from delta_session import day_file, landing_dir, table_path
from make_days import main as make_days_main

KNOWN_DAY_COUNTS = {2: 5, 15: 3, 20: 3, 29: 5, 30: 6}


def file_lines(day_number: int) -> list:
    return day_file(dt.date(2026, 9, day_number)).read_text().splitlines()


def fingerprint(folder) -> dict:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(folder.iterdir())}


def test_make_days_writes_thirty_files_of_130_orders_in_time_order(days):
    assert sorted(path.name for path in landing_dir().iterdir()) == [
        f"2026-09-{n:02d}.csv" for n in range(1, 31)]
    ids, stamps = [], []
    for n in range(1, 31):
        header, *rows = file_lines(n)
        assert header == "order_id,customer_id,amount,ordered_at"
        for row in rows:
            order_id, customer, amount, ordered_at = row.split(",")
            assert ordered_at.startswith(f"2026-09-{n:02d}T")
            ids.append(int(order_id))
            stamps.append(ordered_at)
    assert ids == list(range(2001, 2131))
    assert stamps == sorted(stamps)
    assert {n: len(file_lines(n)) - 1 for n in KNOWN_DAY_COUNTS} == KNOWN_DAY_COUNTS


def test_make_days_again_gives_the_same_bytes_and_restores_a_changed_file(days, capsys):
    before = fingerprint(landing_dir())
    day_file(dt.date(2026, 9, 20)).unlink()
    day_file(dt.date(2026, 9, 15)).write_text("edited\n")
    assert make_days_main([]) == 0
    assert capsys.readouterr().out == (
        "wrote 30 files to landing/orders/: 2026-09-01.csv .. 2026-09-30.csv, 130 orders\n")
    assert fingerprint(landing_dir()) == before


def test_make_days_leaves_the_table_alone_unless_told_to_clean(september, capsys):
    make_days_main([])
    assert (table_path() / "_delta_log").is_dir()
    make_days_main(["--clean"])
    assert capsys.readouterr().out.splitlines()[-1] == "deleted lake/orders_daily"
    assert not table_path().exists()
