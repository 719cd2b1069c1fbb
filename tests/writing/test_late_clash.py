"""Two loads at once whose files share an order id that no day holds yet (shoptoolkit/writing/late_clash.py).

Both are held inside their Delta transactions and let go together. On a table partitioned by order_date
Delta lets both commit (neither read the other's day), so the toolkit looks again after its commit: the
later one finds the id on the other day as the table stood just before it, puts its day back in a
commit of its own, and fails with the line a run after the other would print.
"""
import pytest

from model.processes import held_pair

pytestmark = pytest.mark.timeout(900)

HEADER = "order_id,customer_id,amount,ordered_at"
FILES = {"2026-09-10": [10001, 10002], "2026-09-11": [11001, 11002], "2026-09-12": [12001, 11001]}
# Where 11001 stands in each file that holds it (line 1 is the header).
REFUSED = {"2026-09-11": "landing/orders/2026-09-11.csv line 2: order_id already stored on another day: "
                         "11001 (on 2026-09-12)",
           "2026-09-12": "landing/orders/2026-09-12.csv line 3: order_id already stored on another day: "
                         "11001 (on 2026-09-11)"}


def write_files(landing):
    landing.mkdir(parents=True)
    for day, ids in FILES.items():
        lines = [f"{order_id},C0{n},{n + 1}.50,{day}T1{n}:00:00" for n, order_id in enumerate(ids)]
        (landing / f"{day}.csv").write_text("\n".join([HEADER, *lines]) + "\n")


def test_the_later_of_two_loads_sharing_a_new_id_gives_way(spark, tmp_path):
    from history import table_history
    from load_day import load_day
    from partition_table import partition_by_day
    from shoptoolkit.storage.project_paths import root_at
    from shoptoolkit.table.delta_table import orders_table
    root = tmp_path / "root"
    write_files(root / "landing" / "orders")
    with root_at(root):
        load_day(spark, "2026-09-11")   # version 0
        partition_by_day(spark)         # version 1
    both, ended = held_pair([["load_day.py", "2026-09-12"], ["load_day.py", "2026-09-13"]], root, tmp_path / "hold")
    assert both, ended
    codes = [code for code, _, _ in ended]
    assert sorted(codes) == [0, 1], ended
    days = ["2026-09-11", "2026-09-12"]
    lost, won = days[codes.index(1)], days[codes.index(0)]
    code, out, err = ended[codes.index(1)]
    assert (out, err.splitlines()[-1]) == ("", f"error: {REFUSED[lost]} (another writer committed that id first; "
                                               f"this load landed in version 3 and was taken back in version 4)")
    run_of = {"2026-09-11": "2026-09-12", "2026-09-12": "2026-09-13"}
    assert ended[codes.index(0)][1].startswith(f"run {run_of[won]} loaded {won}: 2 rows, orders_daily has ")
    with root_at(root):
        rows = sorted((row.order_id, str(row.order_date)) for row in orders_table(spark).collect())
        entries = {entry["version"]: entry for entry in table_history(spark, 10)}
    assert rows == sorted([(order_id, day) for day in ("2026-09-10", won) for order_id in FILES[day]])
    assert entries[4]["note"] == (f"restore_day: {lost} from version 2 (undo of version 3: an order id of its "
                                  f"file was stored on another day first)")
    assert (entries[2]["lineage"]["day"], entries[3]["lineage"]["day"]) == (won, lost)
