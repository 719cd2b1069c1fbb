"""What each object store needs, in one table: its scheme, how Spark reaches it (a connector's JARs and
settings), and whether its commits are safe for writers at once and how that is checked. Nothing outside
storage/ tests a root's scheme: it asks store_parts.

    from shoptoolkit.storage.parts import store_parts
    parts = store_parts(table_path())       # None for a local folder
    parts.spark()                           # ([JARs], {Spark's settings}) for this store, fetched if need be

The Python half of a store (its pyarrow file system, its settings and errors) is stores.py's, by the same
scheme. A store whose Spark half is not built here has no connector, and one whose second put of a key
is not known to be refused has no probe: writers at once are refused there (commit_safety.py). A store
that cannot be tested here at all is refused as a root, in one line (location.py): Azure's abfss://,
which no local server speaks.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class StoreParts:
    """One store's parts: its scheme, its Spark connector (a function giving (JARs, settings), None when
    the toolkit does not bring one), and its writers-at-once check (a function of the session and a
    folder: whether a second put-if-absent of one key is refused; None when there is none) and that put in
    the store's words, and why a root on it is refused ('' when it is not)."""
    scheme: str
    name: str
    connector: object = None
    refuses_second_put: object = None
    second_put: str = ""
    refused: str = ""

    def spark(self) -> tuple:
        """([JARs], {settings}) that let Spark read and commit below this store; ([], {}) without a connector."""
        return self.connector() if self.connector else ([], {})


def s3a_connector() -> tuple:
    from shoptoolkit.storage.s3_connector import connector_jars, s3a_settings
    return connector_jars(), s3a_settings()


def s3a_probe(spark, folder: str) -> bool:
    from shoptoolkit.storage.s3_connector import conditional_put_refused
    return conditional_put_refused(spark, folder)


def gs_connector() -> tuple:
    from shoptoolkit.storage.gcs_connector import connector_jars, gs_settings
    return connector_jars(), gs_settings()


def gs_probe(spark, folder: str) -> bool:
    from shoptoolkit.storage.gcs_connector import second_create_refused
    return second_create_refused(spark, folder)


STORES = {
    "s3a": StoreParts("s3a", "S3", s3a_connector, s3a_probe, "a second put of one key (If-None-Match)"),
    "gs": StoreParts("gs", "Google Cloud Storage", gs_connector, gs_probe,
                     "a second create of one object (ifGenerationMatch=0)"),
    "abfss": StoreParts("abfss", "Azure Data Lake Storage",
                        refused="abfss:// is not supported yet: it cannot be tested without Azure"),
}


def store_parts(place):
    """The StoreParts of the store place (a root, a path below it, or a URI) is on; None for a local folder."""
    scheme = str(place).split("://", 1)[0] if "://" in str(place) else ""
    return STORES.get(scheme.lower())
