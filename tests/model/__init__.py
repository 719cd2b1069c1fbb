"""The model check's parts (tests/model_check.py runs them): the till, the model of orders_daily, what
the readers must say, seeded histories, each operation's plan, the run, the processes, shrinking."""
