"""A month's orders written the course's way: delta_session's session, then plain PySpark on the name
orders_daily, nothing else of the toolkit. tests/table/test_table_name.py runs it in every way a session is
made (a terminal, a notebook's first cell, the warm server, a cluster, a Databricks task).

    python tests/support/course_month.py 2026-09       # 2026-09: 30 days, 130 orders
"""
import sys

from delta_session import delta_spark


def month_line(spark, month: str) -> str:
    days = (spark.table("orders_daily")
            .where(f"date_format(order_date, 'yyyy-MM') = '{month}'")
            .select("order_date").distinct().count())
    orders = spark.sql("SELECT count(*) AS orders FROM orders_daily "
                       f"WHERE date_format(order_date, 'yyyy-MM') = '{month}'").first().orders
    return f"{month}: {days} days, {orders} orders"


if __name__ == "__main__":
    print(month_line(delta_spark("check_month"), sys.argv[1]))
