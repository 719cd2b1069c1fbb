"""The Plans of the operations that only read: check_day, check_month (as --json), history (as --json)."""
import datetime as dt
import json

from model import expect
from model.plan import ONE_DAY, Plan, printed

MONTH = "2026-09"
TODAY = "2026-12-31"  # check_month.py's --today: after every run date of the month, so no day is future


def check_day_plan(op, model, days) -> Plan:
    run_date = days[op["day"]] + ONE_DAY

    def call(spark, show):
        from check_day import check_day
        ok, line = check_day(spark, run_date)
        return int(not ok), [line]

    def expected(model, results):
        ok, line = expect.check_day(model, run_date)
        return int(not ok), [line]
    return Plan(["check_day.py", str(run_date)], call, expected)


def month_lines(days: list) -> list:
    return [f"{day} {state} {rows} {line}" for day, state, rows, line in days]


def check_month_plan(op, model, days) -> Plan:
    def call(spark, show):
        from check_month import month_states, month_verdict
        states = month_states(spark, MONTH)
        return int(not month_verdict(MONTH, states)[0]), month_lines(
            [(str(found.day), found.state, found.rows, found.message) for found in states])

    def parse(code, out, err):
        if err:
            return printed(code, out, err)
        return code, month_lines([(d["day"], d["state"], d["rows"], d["check"]) for d in json.loads(out)["days"]])

    def expected(model, results):
        states = expect.month_states(model, dt.date.fromisoformat(f"{MONTH}-01"))
        bad = [day for day, state, _, line in states if not line.startswith("ok") or state == "changed"]
        return int(bool(bad)), month_lines(states)
    return Plan(["check_month.py", MONTH, "--json", "--today", TODAY], call, expected, parse=parse)


def history_plan(op, model, days) -> Plan:
    def call(spark, show):
        from history import table_history
        return 0, entry_lines(table_history(spark, op["limit"]))

    def parse(code, out, err):
        return code, entry_lines(json.loads(line) for line in out.splitlines()) + err.splitlines()

    def expected(model, results):
        if model.now is None:
            return 1, [f"error: {expect.TABLE_MISSING}"]
        return 0, entry_lines(reversed(model.entries[-op["limit"]:]))
    return Plan(["history.py", "--json", "--limit", str(op["limit"])], call, expected, parse=parse)


def entry_lines(entries) -> list:
    """History entries as sorted JSON, without their commit time."""
    return [json.dumps({k: v for k, v in entry.items() if k != "timestamp"}, sort_keys=True) for entry in entries]
