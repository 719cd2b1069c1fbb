import datetime as dt
import hashlib

from shoptoolkit.storage.project_paths import day_file, landing_dir, table_path
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


# sha256 of September's files as make_days.py wrote them before it took --from/--to.
SEPTEMBER_SHA256 = {
    "2026-09-01.csv": "bc5d3896110d31725c201ae5294898f2952ff8e28425d118808011e613b11299",
    "2026-09-02.csv": "fda9039a8374baeb8d038d3c74a287ca07b555a0baf90d1267418ae4d8e2f1dc",
    "2026-09-03.csv": "ba63849af652235eb055a5f922e892dcccc2c4d8ed2e514aaba88cc83f60d660",
    "2026-09-04.csv": "ac761c53f5ac4f64def58ddfd6ca8969882febc1b2059eaa8e5f94370a8b8374",
    "2026-09-05.csv": "de08972fc9407c4e14c981b57cb3e8d484e476da9e3d825e4dd43a4e510d0731",
    "2026-09-06.csv": "91f0db37f68ca3a23dac75d90b5e1c464364291b851de98db9a11b347815418d",
    "2026-09-07.csv": "bd2e658e28e9c431f61ce21977b5443eb68161750b44235057d6b7020049f37b",
    "2026-09-08.csv": "2806dcc563a737d2acd277b29f0decca3a00396b87a0a4476f86d619b4ca782c",
    "2026-09-09.csv": "5bee51331aeb91c2864f5919035191e3181315e1986dba1f12943e0263699533",
    "2026-09-10.csv": "68963de3653f8b8a5704ee775e5e4bc9b9391804b040cf3a7b2e21a1b16c0521",
    "2026-09-11.csv": "6af29e2a2c126cbe3f7e9181ffa8e9ab2df59f74d65ceb5e4f196b8c7ab0e9de",
    "2026-09-12.csv": "47d05972dc3d0aebb7cb975806405b420d833df7383d8b64ee97eeaeee75d375",
    "2026-09-13.csv": "70e19a9b3bbacad574ddc4ad9f249c9fd59ded912de06d91fbf33306b0f1f908",
    "2026-09-14.csv": "f696ea2ada42a98fa146639f10580abab57abf9a27e4657b1c2d1fe9cbb20cd0",
    "2026-09-15.csv": "05dac13bd7060c16b907c999f5033e8ec842dd520918fe8a9dc6f0695da95564",
    "2026-09-16.csv": "7b103f449befce692d6d0b6ae8cf7448beb003c2fc8ab7c4dc12f9f157747192",
    "2026-09-17.csv": "257f349c732e18543583e83465de99119ca1ede684c094f790e24131e5b59bab",
    "2026-09-18.csv": "0720d51ffc94703266d934bbff42e98db76ac8f487b0f5c7c8cb0d549e781e8f",
    "2026-09-19.csv": "7ab2eea53eea745616e187255d8e39dccd1f5144ebb02902aa7b7202ea344a86",
    "2026-09-20.csv": "f2183a291a37ffcccb7244ebcfc0c80a2a5204f660a0313b29af25534dd2ff24",
    "2026-09-21.csv": "1c1c4cbf753201095b56034e4c16fd3bfa0fa755eaba284e3a2bb4b931aaa4a5",
    "2026-09-22.csv": "31812978098fcc50e28dd3868c93ed6f259363493f2034ae9ac98e97dc804265",
    "2026-09-23.csv": "6ca731c955b9f29aa6cbd30e75ff8365fd7bff9f4f9fa7f1a11ab91a173e2263",
    "2026-09-24.csv": "8b9012ce5be38254a0a62e0a22ae72d35446baa0708fa9c8125a89da8a61b158",
    "2026-09-25.csv": "dc53b0c6e2ba7dc07948c2c5e179febc42bc1e15c04570b7115b65e497bce2fc",
    "2026-09-26.csv": "861f5b8df0da3da13dff10a349fb6bd1a46b2136763591052eb9d88934246082",
    "2026-09-27.csv": "0fb9c1d064c5ad757b0f153fb85eea582b4409f42c0ca95a1f02adb90d9899cd",
    "2026-09-28.csv": "48f497d9d5cf23a49199d0052905d12c9fd7be94da40c9cac48d51d73b81aba9",
    "2026-09-29.csv": "7870c2f390e24c6d138fdde345525395d34d9330d168b3fb5e26d7d1265bad5d",
    "2026-09-30.csv": "5211b1278dd53306a6715f91f90e528c60f1e05e29710ed613fcdc09e24d1002",
}


def test_the_default_run_writes_september_byte_for_byte_as_before(days):
    assert fingerprint(landing_dir()) == SEPTEMBER_SHA256


def test_a_year_holds_september_unchanged_and_unique_ids_from_each_day(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert make_days_main(["--from", "2025-10-01", "--to", "2026-09-30"]) == 0
    assert capsys.readouterr().out == (
        "wrote 365 files to landing/orders/: 2025-10-01.csv .. 2026-09-30.csv, 1431 orders\n")
    files = fingerprint(landing_dir())
    assert {name: files[name] for name in SEPTEMBER_SHA256} == SEPTEMBER_SHA256
    assert day_file(dt.date(2025, 10, 1)).read_text() == (
        "order_id,customer_id,amount,ordered_at\n"
        "2025100101,C12,9.99,2025-10-01T12:51:33\n"
        "2025100102,C05,32.50,2025-10-01T20:11:47\n")
    ids = [int(line.split(",")[0]) for path in sorted(landing_dir().iterdir())
           for line in path.read_text().splitlines()[1:]]
    assert len(ids) == len(set(ids)) == 1431
    assert sorted(i for i in ids if i < 10 ** 9) == list(range(2001, 2131))


def test_a_day_is_the_same_file_in_any_range_that_holds_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    make_days_main(["--from", "2026-08-30", "--to", "2026-09-02"])
    short = fingerprint(landing_dir())
    make_days_main(["--from", "2026-08-01", "--to", "2026-10-31"])
    assert {name: fingerprint(landing_dir())[name] for name in short} == short
    assert short["2026-09-01.csv"] == SEPTEMBER_SHA256["2026-09-01.csv"]


def test_clean_on_a_fresh_folder_says_nothing_about_a_table(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert make_days_main(["--clean"]) == 0
    assert capsys.readouterr().out == (
        "wrote 30 files to landing/orders/: 2026-09-01.csv .. 2026-09-30.csv, 130 orders\n")
