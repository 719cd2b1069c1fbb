"""Another Delta client's write, as the model check's replays run it: one SQL statement on orders_daily's
path in a plain Spark session with Delta, none of the toolkit's writes and no lineage.

    python tests/model/foreign_write.py "DELETE FROM {table} WHERE order_id = 10002" --root DIR

{table} stands for delta.`DIR/lake/orders_daily`.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from delta_session import delta_spark, set_root  # noqa: E402
from shoptoolkit.storage.project_paths import table_path

if __name__ == "__main__":
    set_root(sys.argv[sys.argv.index("--root") + 1])
    delta_spark("foreign_write", commits=1).sql(sys.argv[1].replace("{table}", f"delta.`{table_path()}`"))
