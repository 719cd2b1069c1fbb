"""The table and its log: orders_daily in a session, the Delta log read as files (commits, the newest
version, a damaged log), each load's lineage in its commit, the first load's lock, the undo window."""
from shoptoolkit.table.delta_log_check import delta_log_problem
from shoptoolkit.table.delta_table import IDS_IN_QUERY, existing_table, orders_table, table_after_write
from shoptoolkit.table.load_lineage import days_label, lineage, restore_note
from shoptoolkit.table.undo_window import (BEYOND_WINDOW, DEFAULT_WINDOW, set_window, shown_window, table_window,
                                           window_start)
from shoptoolkit.table_schema import COLUMNS, PARTITION_COLUMN, table_ddl
