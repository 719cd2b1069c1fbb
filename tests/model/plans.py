"""Each operation of a history as its Plan (plan.py): the readers' (read_plans.py), the writers'
(write_plans.py), upkeep's (upkeep_plan.py), another Delta client's (foreign.py), and two writers at once
as their two plans side by side."""
from model.foreign import foreign_plan
from model.plan import Plan
from model.read_plans import check_day_plan, check_month_plan, history_plan
from model.upkeep_plan import upkeep_plan
from model.write_plans import backfill_plan, load_plan, partition_plan, restore_plan

PLANS = {"load": load_plan, "check_day": check_day_plan, "check_month": check_month_plan, "backfill": backfill_plan,
         "restore": restore_plan, "partition": partition_plan, "history": history_plan, "upkeep": upkeep_plan,
         "foreign": foreign_plan}


def plan_of(op, model, days) -> Plan:
    """The Plan of a toolkit operation; two writers at once are the two plans side by side."""
    if op["op"] == "writers":
        parts = [plan_of(one, model, days) for one in op["ops"]]
        return Plan([], None, None, [thread for part in parts for thread in part.threads], parts=parts)
    if op["op"] == "kill":
        return plan_of(op["target"], model, days)
    return PLANS[op["op"]](op, model, days)
