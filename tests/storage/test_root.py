"""The project root: landing/, lake/ and logs/ below --root DIR or SHOP_ROOT, else the current folder.

    pytest tests/storage/test_root.py        # real processes, none of them starts Spark
"""
import os

from conftest import run_script

WROTE = "wrote 30 files to landing/orders/: 2026-09-01.csv .. 2026-09-30.csv, 130 orders\n"


def test_root_option_puts_the_files_below_it_and_nothing_in_the_current_folder(tmp_path):
    for name in ("here", "root"):
        (tmp_path / name).mkdir()
    done = run_script("make_days.py", "--root", "../root", cwd=tmp_path / "here")
    assert (done.returncode, done.stdout, done.stderr) == (0, WROTE, "")
    assert len(list((tmp_path / "root" / "landing" / "orders").iterdir())) == 30
    assert list((tmp_path / "here").iterdir()) == []


def test_shop_root_does_the_same_and_the_option_wins_over_it(tmp_path):
    for name in ("here", "by_env", "by_option"):
        (tmp_path / name).mkdir()
    env = {**os.environ, "SHOP_ROOT": str(tmp_path / "by_env")}
    assert run_script("make_days.py", cwd=tmp_path / "here", env=env).stdout == WROTE
    assert run_script("make_days.py", "--to", "2026-09-01", "--root", str(tmp_path / "by_option"),
                      cwd=tmp_path / "here", env=env).returncode == 0
    assert len(list((tmp_path / "by_env" / "landing" / "orders").iterdir())) == 30
    assert [p.name for p in (tmp_path / "by_option" / "landing" / "orders").iterdir()] == ["2026-09-01.csv"]
    assert list((tmp_path / "here").iterdir()) == []


def test_failed_day_names_the_day_and_its_file_below_the_root(tmp_path):
    (tmp_path / "root").mkdir()
    assert run_script("make_days.py", "--root", str(tmp_path / "root"), cwd=tmp_path).returncode == 0
    (tmp_path / "root" / "landing" / "orders" / "2026-09-20.csv").unlink()
    done = run_script("failed_day.py", "2026-09-21", "--root", str(tmp_path / "root"), cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == ("FAILED run 2026-09-21: day 2026-09-20 is not loaded and checked; "
                           "no file landing/orders/2026-09-20.csv\n")
    done = run_script("failed_day.py", "2026-09-20", "--root", str(tmp_path / "root"), cwd=tmp_path)
    assert done.stdout == ("FAILED run 2026-09-20: day 2026-09-19 is not loaded and checked; landing/orders/"
                           "2026-09-19.csv reads fine (5 orders): the table or Spark failed, see the load_day "
                           "and check_day output\n")
