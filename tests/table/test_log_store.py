"""Delta's commits on a local disk go through the toolkit's log store (java/shoptoolkit/AtomicLocalLogStore.java):
a version's file is created only if no other writer has created it, in one step of the operating system.

Delta's default store for file: paths checks that the file is absent and then renames onto it, and on a
local disk a rename replaces. Two processes committing at the same moment could both write the same
version, the second replacing the first: seen in this suite's four-writer test, as a version whose file
came from one writer and whose Hadoop checksum from another. That moment is a few microseconds between
two system calls inside the JVM, too short to stage from a test. These tests stage the interleaving the
store must survive instead: a writer whose commit is written out finds its version already taken."""
import pytest
from py4j.protocol import Py4JJavaError

from load_day import load_day
from shoptoolkit.engine.spark_jvm import LOG_STORE_CLASS

COMMIT = "00000000000000000007.json"


def store_class(spark):
    return getattr(spark.sparkContext._jvm.shoptoolkit, LOG_STORE_CLASS.rsplit(".", 1)[1])


def java_path(spark, path):
    return spark.sparkContext._jvm.java.io.File(str(path)).toPath()


def store_write(spark, folder, name: str, lines: list) -> None:
    """The store's write of a new file (overwrite false), as Delta calls it for a commit."""
    jvm = spark.sparkContext._jvm
    actions = jvm.java.util.ArrayList()
    for line in lines:
        actions.add(line)
    store = store_class(spark)(spark.sparkContext._jsc.hadoopConfiguration())
    path = jvm.org.apache.hadoop.fs.Path((folder / name).as_uri())
    store.write(path, actions.iterator(), False, spark.sparkContext._jsc.hadoopConfiguration())


def test_the_suites_commits_go_through_the_toolkits_log_store(spark, days):
    assert spark.conf.get("spark.delta.logStore.file.impl") == LOG_STORE_CLASS
    load_day(spark, "2026-09-02")
    log = days / "lake" / "orders_daily" / "_delta_log"
    assert (log / "00000000000000000000.json").exists()
    assert list(log.glob(".*.json.crc")) == []  # Hadoop's store leaves a checksum file beside each commit; this one none


def test_a_finished_commit_whose_version_is_taken_is_refused_and_the_first_one_stays(spark, tmp_path):
    theirs, mine = tmp_path / COMMIT, tmp_path / f".{COMMIT}.mine.tmp"
    theirs.write_text('{"commitInfo":{"by":"the other writer"}}\n')
    mine.write_text('{"commitInfo":{"by":"this writer"}}\n')
    with pytest.raises(Py4JJavaError) as refused:
        store_class(spark).publish(java_path(spark, mine), java_path(spark, theirs))
    assert "java.nio.file.FileAlreadyExistsException" in str(refused.value.java_exception)
    assert theirs.read_text() == '{"commitInfo":{"by":"the other writer"}}\n'
    store_class(spark).publish(java_path(spark, mine), java_path(spark, tmp_path / "00000000000000000008.json"))
    assert (tmp_path / "00000000000000000008.json").read_text() == '{"commitInfo":{"by":"this writer"}}\n'


def test_the_store_writes_a_new_version_whole_and_refuses_it_a_second_time(spark, tmp_path):
    store_write(spark, tmp_path, COMMIT, ['{"add":1}', '{"add":2}'])
    assert (tmp_path / COMMIT).read_text() == '{"add":1}\n{"add":2}\n'
    with pytest.raises(Py4JJavaError) as refused:
        store_write(spark, tmp_path, COMMIT, ['{"add":3}'])
    assert "java.nio.file.FileAlreadyExistsException" in str(refused.value.java_exception)
    assert (tmp_path / COMMIT).read_text() == '{"add":1}\n{"add":2}\n'
    assert sorted(path.name for path in tmp_path.iterdir()) == [COMMIT]  # no temporary file left
