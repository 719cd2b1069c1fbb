"""The machinery behind the scripts at the top: paths, arguments, errors, the table's helpers, the day
file's line-by-line check, the comparison of a day with its file, commits of many days, the day states,
the warm server's and the pipeline's processes. shoptoolkit/jvm/ holds what the JVM needs. A reader of
the scripts can skip all of it; delta_session.py re-exports what a script or a notebook uses."""
