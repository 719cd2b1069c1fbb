"""The till's file and its rules: a day's landing file checked by the rules of docs/bad_input.md, on
one of two paths with the same words, and read as Spark reads it.

    in_python.py   a line at a time in Python, hashed in the same read (a small file), and the rules themselves
    in_spark.py    inside Spark for a big file (or a commit's files together): one query over its lines in splits
    in_write.py    inside the write's own job for a big file: a refused line fails the job (writing/held_write.py)
    line_scan.py   the Spark path's queries over the lines
    rules_sql.py   the Python rules of a line as Spark expressions, from the same patterns
    new_columns.py what a load does with a column the table does not have: fail, add or rescue
    pipeline_headers.py  line 1 of every file before a pipeline run: the pipeline takes the till's columns only
    day_frames.py  day files as Spark reads them: several days as one frame, packed for a write, in splits
"""
from shoptoolkit.till.day_frames import read_days
from shoptoolkit.till.in_python import DayFile, file_facts, read_orders
from shoptoolkit.till.in_spark import checked_day, line_of, spark_check_bytes
from shoptoolkit.till.line_rules import bad_line
from shoptoolkit.till.pipeline_headers import refuse_other_headers
from shoptoolkit.till.new_columns import MODES, current, setting_for, table_extras, using
