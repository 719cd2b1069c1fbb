"""A day's truth: one route from a day's file and the table's log to its state and its line (the
record's proof, or a comparison in Python or inside Spark), the words of every verdict, the month's
calendar, and the runs a --reprocess chooses from the states."""
from shoptoolkit.truth.day_compare import checked_file, compare_day, file_ids, stored_ids
from shoptoolkit.truth.day_truth import DayTruth, day_states
from shoptoolkit.truth.month_calendar import draw_calendar, wants_colour
from shoptoolkit.truth.reprocess import REPROCESS, dates_to_run, dry_run
from shoptoolkit.truth.verdict import totals_verdict, view_month_verdict
