"""Where the project's files are: a local folder, or a prefix of an object store's bucket, and the
project's places below the root (landing/, lake/, logs/)."""
from shoptoolkit.storage.commit_safety import refuse_writers_at_once
from shoptoolkit.storage.location import is_local, listed_file, remove_tree
from shoptoolkit.storage.project_paths import (LAKE, LANDING, day_file, landing_dir, local_root, logs_dir,
                                               project_root, root_at, shown, table_path)
