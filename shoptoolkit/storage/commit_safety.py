"""Whether the table's store lets only one writer win each commit, so that writers at once are safe there.

    from shoptoolkit.storage.commit_safety import refuse_writers_at_once
    refuse_writers_at_once(spark)   # a ToolkitError when two writers could both commit one version

Delta commits version N by creating _delta_log/N.json only if nobody has. On a local folder the
toolkit's AtomicLocalLogStore makes it a hard link, which the system refuses when the name is taken.
On s3a:// its ConditionalPutLogStore puts the commit with If-None-Match: *, which AWS S3 answers with
412 when the key exists, as do the S3-compatible servers that copy it. On gs:// Delta's own GCSLogStore
creates it with ifGenerationMatch=0, which GCS answers with 412 when the object exists. A server that
ignores the condition (an older one, or a proxy that drops it) would let the second writer replace the
first one's commit. So before writers run at once on a store, an object is put twice below lake/ (its
probe, storage/parts.py): when the second put is not refused, the run is refused in one line. One
writer at a time stays safe there. The answer is kept for the session's life, one a bucket.
"""
from shoptoolkit.errors import ToolkitError
from shoptoolkit.storage.parts import store_parts
from shoptoolkit.storage.project_paths import table_path

PROBED = {}  # bucket: whether its store refused the second put


def refuse_writers_at_once(spark) -> None:
    """Raise ToolkitError when the table is on an object store whose second put of one key is not refused
    (probed once a bucket), or whose store the toolkit cannot probe (storage/parts.py)."""
    refuse_writers_on(str(table_path()), spark)


def refuse_writers_on(table: str, spark) -> None:
    """refuse_writers_at_once for the table at table (its URI)."""
    parts = store_parts(table)
    if parts is None:
        return
    bucket = table.split("/")[2]
    if parts.refuses_second_put is None:
        raise ToolkitError(f"{parts.scheme}://{bucket}: writers at once are not supported on {parts.name} yet (no "
                           f"check that it refuses a second commit of one version): run one writer at a time there")
    if bucket not in PROBED:
        if not hasattr(spark, "_jvm"):
            raise ToolkitError(f"writers at once on {parts.scheme}:// need a classic Spark session: the store is "
                               f"probed through its JVM (a Spark Connect client has none)")
        PROBED[bucket] = parts.refuses_second_put(spark, f"{table.rsplit('/', 1)[0]}/_shop_probe")
    if not PROBED[bucket]:
        raise ToolkitError(f"{parts.scheme}://{bucket} does not refuse {parts.second_put}, so two "
                           f"writers at once could both commit one version of {table}, the second replacing "
                           f"the first: run one writer at a time there (no --parallel, no parallel.py)")
