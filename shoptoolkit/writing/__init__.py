"""Writing days: a commit of many days, the held write that commits only checked days, late clashes
of ids taken back, conflicts retried, and the compaction of closed months."""
from shoptoolkit.writing.commit_days import load_days
from shoptoolkit.writing.compaction import compact_month, month_plans
from shoptoolkit.writing.conflicts import error_class
from shoptoolkit.writing.held_write import HeldDays, held_days, one_job_fits
from shoptoolkit.writing.late_clash import day_predicate, take_back_late_clashes, version_checked
from shoptoolkit.writing.retry import print_now, retrying
