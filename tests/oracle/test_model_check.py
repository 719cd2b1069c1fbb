"""The model check on its fixed runs (tests/model/fixed.py): random histories of a few seeds, and
histories written out. `make soak` runs new seeds for as long as you give it; `make mutants` shows that
these runs catch every planted bug of tests/mutants.py (its last table is in docs/tests.md).

What the seeds reach, and what only the written histories do: a seed's history is random, so the seeds
are not relied on to reach any one operation. The written histories force what a bug would hide in:
restores that change rows (a day, a range), a load and a one-commit backfill refused for an id another
day holds, another Delta client's insert, delete, update, whole-day delete and replace with the checks'
PROBLEM lines, --reprocess failed and restore_day repairing them, deletion vectors, big files checked
inside Spark, a month compacted then a day of it loaded and restored, two loads at once that clash
after their id checks, an empty write, upkeep after another writer's table property, check_month of a big
file before the first load, a backfill at once with the first load, files edited around another writer's
changes of values, a session in another time zone, and a file gaining and losing a column (fail's refusal,
rescue, add, a restore across the change). About 11 minutes; a divergence adds its shrinking.
"""
import re
import subprocess
import sys

import pytest

from conftest import ROOT
from model.fixed import HISTORIES, SEEDS
from model.histories import generate
from model_check import check_history

BUCKET_SEED = 7275  # two writers at once and a killed backfill, on a bucket (the test below)
SHRINK_SECONDS = 240  # a divergence is shortened for at most this long before the test fails with it

pytestmark = pytest.mark.timeout(600)  # a history takes 15-90 s in CI; a divergence adds its shrinking


@pytest.mark.parametrize("seed", SEEDS)
def test_a_random_history_leaves_the_table_as_the_model_says(spark, seed, tmp_path):
    figures, report = check_history(spark, generate(seed), tmp_path, SHRINK_SECONDS)
    assert report == "", report
    assert figures.divergences == 0 and figures.operations == len(generate(seed)["ops"])


@pytest.mark.timeout(1200)  # both stores: about 4 minutes in CI
def test_a_seed_with_writers_at_once_and_a_kill_runs_on_a_bucket_as_on_a_folder():
    """Seed 7275 (21 operations: two writers held together, a restore and a backfill SIGKILLed at 11-12 s, a
    file gaining a column, another client's writes) on a bucket of each local server, in one process of its
    own and one session (--local-s3: moto's, then --local-gcs: fake-gcs-server; each on a loopback port,
    stopped at the end), its commits through the toolkit's conditional-put log store on S3 and Delta's
    GCSLogStore on GCS. Where the kills land is the machine's timing (inside a write, or after the run's end,
    in the runs measured), and so is what the table holds when the two writers start (both held together,
    or one refused first): the model follows each way, and each store's figures line says which it was."""
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "model_check.py"), "--seed", str(BUCKET_SEED),
                           "--local-s3", "--local-gcs", "--shrink", "0"], capture_output=True, text=True, timeout=1100)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert len(lines) == 6, lines
    for (server, scheme), block in zip((("S3", "s3a"), ("GCS", "gs")), (lines[:3], lines[3:])):
        assert re.fullmatch(rf"a local {server} server on http://127\.0\.0\.1:\d+; the histories below "
                            rf"{scheme}://shop/model-\d+", block[0]), lines
        assert re.fullmatch(rf"seed {BUCKET_SEED}: ok, 21 operations \(\d+\.\d s\)", block[1]), lines
        assert re.fullmatch(r"1 histories, 21 operations, [0-2] kills \(.*\), [01] overlapping writer pairs, "
                            r"\d+ writes of another client, .* 0 divergences; .*", block[2]), lines
        print(f"{server}: {block[2]}")


@pytest.mark.parametrize("name", HISTORIES)
def test_a_written_history_leaves_the_table_as_the_model_says(spark, name, tmp_path):
    figures, report = check_history(spark, {"name": name, **HISTORIES[name]}, tmp_path, SHRINK_SECONDS)
    assert report == "", report
    assert figures.operations == len(HISTORIES[name]["ops"])


def test_two_threads_that_make_the_same_write_are_followed_either_way():
    """A divergence the soak found in the model itself (seed 905110695): a load and a backfill at once both
    load 2026-09-07 from run 2026-09-08, and the backfill's commit of it landed first. The model gave that
    commit to the load (the first thread that makes it), so the backfill's next commit was one no thread
    made. It now tries each thread that makes a commit, and keeps the way that diverges nowhere."""
    import datetime as dt

    from model.histories import days_of
    from model.plans import plan_of
    from model.replay import follow
    from model.table_model import TableModel, load_outcome
    from model.till import Till
    history = {"first": "2026-09-05", "days": 4}
    days = days_of(history)

    def model_of_files():
        model = TableModel(Till(days))
        model.till.write(days[2], 945122)
        model.till.write(days[3], 858577)
        return model
    run = {day: day + dt.timedelta(days=1) for day in days}
    landed, entries = model_of_files(), []   # as the soak saw them: the backfill's two loads, then the load's
    for day in (days[2], days[3], days[2]):
        outcome = load_outcome(landed, [(run[day], day)])
        entries.append({**outcome.entry, "version": len(landed.versions)})
        landed.commit(outcome)
    model = model_of_files()
    writers = {"op": "writers", "ops": [{"op": "load", "day": 2}, {"op": "backfill", "first": 1, "last": 3,
                                                                   "per_commit": 1, "parallel": 1, "reprocess": "all"}]}
    results, problem = follow(model, plan_of(writers, model, days).threads, entries)
    assert problem == ""
    assert [len(thread) for thread in results] == [1, 3] and model.now.table == landed.now.table


def test_shrinking_tries_each_simpler_form_of_an_operation():
    from model.runner import divergence_kind
    from model.shrink import simpler
    backfill = {"op": "backfill", "first": 1, "last": 3, "per_commit": 0, "parallel": 2, "reprocess": "all",
                "dry_run": True, "process": True}
    forms = simpler(backfill)
    assert [{key: value for key, value in form.items() if backfill.get(key) != value} for form in forms] == [
        {"process": False}, {"dry_run": False}, {"parallel": 1}, {"per_commit": 1}, {"per_commit": 2},
        {"first": 2}, {"last": 2}]
    load = {"op": "load", "day": 1}
    assert simpler({"op": "writers", "ops": [load, {"op": "load", "day": 2}]}) == [load, {"op": "load", "day": 2}]
    assert simpler({"op": "kill", "target": {**load, "dry_run": False}, "after": 4.0}) == [
        {**load, "dry_run": False, "process": True}]
    assert simpler(load) == []
    assert divergence_kind("table: 2026-09-12: expected (), found ((1, 'C01'),)") == "table 2026-09-12"
    assert divergence_kind("history: no commit for a write that lands: {}") == "history -"


def test_writes_at_once_leave_the_closing_lines_table_to_either_order():
    """The soak's seed 333848921: a backfill of one run without a file, at once with the table's first load,
    ended before that load's commit and said the table did not exist; the model said it had the load's day.
    Either is right for writes at once (the closing line's table is masked), neither for one writer."""
    from model.printed import same
    observed = (1, ["1/1 run 2026-09-25 failed: no file landing/orders/2026-09-24.csv for run 2026-09-25 (0.00 s)",
                    "ran 1 runs, 1 failed (2026-09-25); orders_daily does not exist (4.9 s)"])
    expected = (1, ["run 2026-09-25 failed: no file landing/orders/2026-09-24.csv for run 2026-09-25",
                    "ran 1 runs, 1 failed (2026-09-25); orders_daily has 1 days, 5 orders"])
    assert same(observed, expected, at_once=True, killed=False)
    assert not same(observed, expected, at_once=False, killed=False)
    assert not same(observed, (1, expected[1][:1] + ["ran 1 runs, 0 failed; orders_daily has 1 days, 5 orders"]),
                    at_once=True, killed=False)
