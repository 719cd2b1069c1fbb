"""The planted bugs of tests/mutants.py stay plantable, and the table of the last `make mutants` run in
docs/tests.md is the table of these mutants and these fixed runs (tests/model/fixed.py): a new mutant,
seed or written history changes the fingerprint, and needs a new run whose every mutant is caught."""
import re

import pytest

from conftest import ROOT
from mutants import MUTANTS, fingerprint


@pytest.mark.parametrize("name", MUTANTS)
def test_each_mutant_s_text_is_in_its_file_once(name):
    file, old, new = MUTANTS[name]
    assert (ROOT / file).read_text(encoding="utf-8").count(old) == 1 and old != new


def test_the_mutants_table_is_the_last_run_of_these_mutants_and_runs():
    text = (ROOT / "docs" / "tests.md").read_text(encoding="utf-8")
    recorded = re.search(r"fingerprint `([0-9a-f]{16})`", text)
    assert recorded and recorded[1] == fingerprint(), (
        "the mutants or the fixed runs changed since docs/tests.md's table: run `make mutants` and record it")
    table = dict(re.findall(r"^\| `(\w+)` \| (caught|NOT caught)", text, re.M))
    assert table == {name: "caught" for name in MUTANTS}
