"""Whether the table's store lets only one writer win each commit, so that writers at once are safe there.

    from shoptoolkit.commit_safety import refuse_writers_at_once
    refuse_writers_at_once(spark)   # a ToolkitError when two writers could both commit one version

Delta commits version N by creating _delta_log/N.json only if nobody has. On a local folder the
toolkit's AtomicLocalLogStore makes it a hard link, which the system refuses when the name is taken.
On s3a:// its ConditionalPutLogStore puts the commit with If-None-Match: *, which AWS S3 answers with
412 when the key exists, as do the S3-compatible servers that copy it. A server that ignores the header
(an older one, or a proxy that drops it) would let the second writer replace the first one's commit.
So before writers run at once on s3a://, a key is put twice below lake/: when the second put is not
refused, the run is refused in one line. One writer at a time stays safe there (Delta's own promise
for S3). The answer is kept for the session's life, one a bucket.
"""
import uuid

from shoptoolkit.errors import ToolkitError
from shoptoolkit.project_paths import table_path

REFUSED = "org.apache.hadoop.fs.s3a.RemoteFileChangedException"  # S3A's word for a 412 on a put
PROBED = {}  # bucket: whether its store refused the second put


def refuse_writers_at_once(spark) -> None:
    """Raise ToolkitError when the table is on s3a:// and its store does not refuse a second put of a key."""
    table = str(table_path())
    if not table.startswith("s3a://"):
        return
    bucket = table.split("/")[2]
    if bucket not in PROBED:
        PROBED[bucket] = refuses_second_put(spark, str(table_path().parent / "_shop_probe"))
    if not PROBED[bucket]:
        raise ToolkitError(f"s3a://{bucket} does not refuse a second put of one key (If-None-Match), so two "
                           f"writers at once could both commit one version of {table}, the second replacing "
                           f"the first: run one writer at a time there (no --parallel, no parallel.py)")


def refuses_second_put(spark, folder: str) -> bool:
    """Put a new key below folder twice, each only if absent, through the session's S3A: was the second refused?"""
    if not hasattr(spark, "_jvm"):
        raise ToolkitError("writers at once on s3a:// need a classic Spark session: the store is probed "
                           "through its JVM (a Spark Connect client has none)")
    from py4j.protocol import Py4JJavaError
    jvm = spark._jvm
    path = jvm.org.apache.hadoop.fs.Path(f"{folder}/{uuid.uuid4()}")
    store = path.getFileSystem(spark._jsc.hadoopConfiguration())
    put = jvm.shoptoolkit.ConditionalPutLogStore.putIfAbsent
    put(store, path, bytearray(b"first"))
    try:
        put(store, path, bytearray(b"second"))
        return False
    except Py4JJavaError as error:
        if error.java_exception.getClass().getName() != REFUSED:
            raise
        return True
    finally:
        store.delete(path, False)
