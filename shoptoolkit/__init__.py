"""The machinery behind the scripts at the top, in rooms by domain, each importing only the rooms
before it (tests/course/test_house.py writes the order down): the base modules (errors, dates, places, table_schema,
row_values), storage/, engine/, till/, table/, truth/, writing/, then run_args.py, what every script
shares. A reader of the scripts can skip all of it; delta_session.py re-exports what a script or a
notebook uses."""
