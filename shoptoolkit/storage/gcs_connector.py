"""Spark's way to gs:// roots: Google's Cloud Storage connector for Hadoop, fetched the first time a root is
gs://, and the settings that point it where Google's own clients point.

    python -m shoptoolkit.storage.gcs_connector           # fetch it now (a script does on its first gs:// start)
    python -m shoptoolkit.storage.gcs_connector --status  # where it is, or that it is not fetched

The connector is com.google.cloud.bigdataoss:gcs-connector 4.0.4 (its Hadoop 3 line), the JAR of its `shaded`
classifier: one JAR, 38.6 MiB, from Maven Central, checked against Maven's SHA-1 and kept beside the class
archive. It holds its own dependencies under its own package names; the plain JAR's protobuf 4 clashes
with Spark's.

The settings follow Google's conventions: with STORAGE_EMULATOR_HOST (a local server, as Google's clients
read it) the connector asks that server, without credentials; else it takes Google's application default
credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's login, the metadata server). Any other
spark.hadoop.fs.gs.* setting (spark-defaults.conf) passes through. Delta's commits on gs:// go through
Delta's own GCSLogStore: each commit is a create that GCS refuses when the object exists (a generation
precondition, ifGenerationMatch=0), so one writer of a version wins.
"""
import os
import sys
import uuid
from pathlib import Path
from urllib.parse import urlparse

from shoptoolkit.places import SHARE
from shoptoolkit.storage.s3_connector import MAVEN, fetch_command, fetched

VERSION = "4.0.4"
JAR = f"gcs-connector-{VERSION}-shaded.jar"
URL = f"{MAVEN}/com/google/cloud/bigdataoss/gcs-connector/{VERSION}/{JAR}"
CONNECTOR = "com.google.cloud.hadoop.fs.gcs"
LOG_STORE = "io.delta.storage.GCSLogStore"
# Hadoop 3.5's core-default.xml gives these settings (of its own GCS file system, which pyspark does not ship)
# in sizes such as 64m, which this connector cannot read as numbers: the same sizes, in bytes.
SIZES = {"block.size": 64 << 20, "outputstream.buffer.size": 8 << 20, "inputstream.inplace.seek.limit": 8 << 20,
         "inputstream.min.range.request.size": 2 << 20, "rewrite.max.chunk.size": 512 << 20}
REFUSED = "412 Precondition Failed"  # GCS's answer to a create of a name that exists, as GCSLogStore looks for it


def connector_dir() -> Path:
    return SHARE / f"gcs-connector-{VERSION}"


def connector_jars(fetch: bool = True) -> list:
    """The connector's JAR, fetched first when it is missing (fetch=False: [] until it is here)."""
    jar = connector_dir() / JAR
    if not jar.exists():
        if not fetch:
            return []
        jar.parent.mkdir(parents=True, exist_ok=True)
        fetched(URL, jar, "the Google Cloud Storage connector")
    return [str(jar)]


def gs_settings(env=os.environ) -> dict:
    """Spark's settings for gs:// from Google's conventions in env (no secret among them)."""
    settings = {"spark.hadoop.fs.gs.impl": f"{CONNECTOR}.GoogleHadoopFileSystem",
                "spark.hadoop.fs.AbstractFileSystem.gs.impl": f"{CONNECTOR}.GoogleHadoopFS",
                "spark.delta.logStore.gs.impl": LOG_STORE,
                "spark.hadoop.fs.gs.auth.type": "APPLICATION_DEFAULT",
                **{f"spark.hadoop.fs.gs.{name}": str(size) for name, size in SIZES.items()}}
    emulator = env.get("STORAGE_EMULATOR_HOST")
    if emulator:
        url = urlparse(emulator if "://" in emulator else f"http://{emulator}")
        settings.update({"spark.hadoop.fs.gs.storage.root.url": f"{url.scheme}://{url.netloc}/",
                         "spark.hadoop.fs.gs.auth.type": "UNAUTHENTICATED"})
    return settings


def second_create_refused(spark, folder: str) -> bool:
    """Two creates of one new object below folder, both opened before either is closed (two writers of one
    commit, each having seen it absent), through the session's connector: was the second one's refused?"""
    from py4j.protocol import Py4JJavaError
    path = spark._jvm.org.apache.hadoop.fs.Path(f"{folder}/{uuid.uuid4()}")
    store = path.getFileSystem(spark._jsc.hadoopConfiguration())
    first, second = store.create(path, False), store.create(path, False)
    try:
        first.write(bytearray(b"first"))
        first.close()
        second.write(bytearray(b"second"))
        try:
            second.close()
            return False
        except Py4JJavaError as error:
            if REFUSED not in str(error.java_exception.toString()) + causes(error.java_exception):
                raise
            return True
    finally:
        store.delete(path, False)


def causes(throwable) -> str:
    """The messages of a Java error's causes, one after another."""
    said = []
    cause = throwable.getCause()
    while cause is not None and len(said) < 20:
        said.append(str(cause.toString()))
        cause = cause.getCause()
    return " ".join(said)


def main(argv=None) -> int:
    return fetch_command(argv, __doc__, connector_jars, connector_dir(), "Google Cloud Storage connector",
                         "shoptoolkit.storage.gcs_connector")


if __name__ == "__main__" and "__file__" in globals():
    sys.exit(main())
