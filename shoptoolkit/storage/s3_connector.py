"""Spark's way to s3a:// roots: Hadoop's S3A connector, fetched the first time a root is s3a://, and the
settings that point it where AWS's own tools point.

    python -m shoptoolkit.storage.s3_connector           # fetch it now (a script does on its first s3a:// start)
    python -m shoptoolkit.storage.s3_connector --status  # where it is, or that it is not fetched

The connector is hadoop-aws 3.5.0 (pyspark 4.2 ships Hadoop 3.5.0) and the AWS SDK v2 modules it calls:
36 JARs, 12.3 MiB, from Maven Central, each checked against Maven's SHA-1 and kept beside the class
archive. hadoop-aws's own POM asks for the SDK's `bundle` (654 MiB) instead; these modules are the ones
its classes use (S3, STS for web identity and profile roles, the Apache and Netty HTTP clients, the
transfer manager), less what pyspark's jars already hold (httpclient, Netty, SLF4J).

The settings follow AWS's conventions: the SDK's default credentials chain (AWS_ACCESS_KEY_ID /
AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, AWS_PROFILE and ~/.aws/, web identity, an instance role),
AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL for an S3-compatible server (then path-style addressing),
AWS_REGION or AWS_DEFAULT_REGION; any other spark.hadoop.fs.s3a.* setting (spark-defaults.conf) passes
through. No secret is put in a setting: the JVM reads them from its environment. Delta's commits on s3a:// go through the
toolkit's ConditionalPutLogStore (java/shoptoolkit/), which writes each commit with If-None-Match, and
Delta writes no checksum file beside them (CHECKSUM_FILE: on a bucket, about twenty requests a commit).
"""
import argparse
import hashlib
import os
import sys
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import urlparse

from shoptoolkit.places import SHARE

MAVEN = "https://repo1.maven.org/maven2"
SDK = "2.35.4"
SDK_MODULES = ("s3", "sts", "s3-transfer-manager", "apache-client", "netty-nio-client", "annotations", "arns",
               "auth", "aws-core", "aws-query-protocol", "aws-xml-protocol", "checksums", "checksums-spi",
               "crt-core", "endpoints-spi", "http-auth", "http-auth-aws", "http-auth-aws-eventstream",
               "http-auth-spi", "http-client-spi", "identity-spi", "json-utils", "metrics-spi", "profiles",
               "protocol-core", "regions", "retries", "retries-spi", "sdk-core", "third-party-jackson-core",
               "utils", "utils-lite")
COORDINATES = (("org.apache.hadoop", "hadoop-aws", "3.5.0"),
               ("software.amazon.s3.analyticsaccelerator", "analyticsaccelerator-s3", "1.3.1"),
               ("software.amazon.eventstream", "eventstream", "1.0.1"),
               ("org.reactivestreams", "reactive-streams", "1.0.4"),
               *(("software.amazon.awssdk", module, SDK) for module in SDK_MODULES))
LOG_STORE = "shoptoolkit.ConditionalPutLogStore"
DEFAULT_CHAIN = "software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider"
REFUSED = "org.apache.hadoop.fs.s3a.RemoteFileChangedException"  # S3A's word for a 412 on a put
# Delta's checksum file after each commit (N.crc: optional in Delta's protocol) costs about twenty requests
# on a bucket (a temporary object, looks, a copy and a delete: S3A's rename); no read of the toolkit's uses it.
CHECKSUM_FILE = "spark.databricks.delta.writeChecksumFile.enabled"


def connector_dir() -> Path:
    return SHARE / "s3a-hadoop-3.5.0"


def jar_name(group: str, artifact: str, version: str) -> str:
    return f"{group}_{artifact}-{version}.jar"


def jar_url(group: str, artifact: str, version: str) -> str:
    return f"{MAVEN}/{group.replace('.', '/')}/{artifact}/{version}/{artifact}-{version}.jar"


def connector_jars(fetch: bool = True) -> list:
    """The connector's JARs, fetched first when some are missing (fetch=False: [] until all are here)."""
    folder = connector_dir()
    jars = [folder / jar_name(*coordinate) for coordinate in COORDINATES]
    missing = [(coordinate, jar) for coordinate, jar in zip(COORDINATES, jars) if not jar.exists()]
    if missing and not fetch:
        return []
    folder.mkdir(parents=True, exist_ok=True)
    for coordinate, jar in missing:
        fetched(jar_url(*coordinate), jar)
    return [str(jar) for jar in jars]


def fetched(url: str, jar: Path, what: str = "the S3 connector") -> None:
    """Download url to jar, whole or not at all, after its bytes match Maven's SHA-1 (what: the words for
    the connector in an error)."""
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            body = answer.read()
        with urllib.request.urlopen(url + ".sha1", timeout=60) as answer:
            expected = answer.read().decode().split()[0]
    except OSError as error:
        raise SystemExit(f"cannot fetch {what} from Maven Central ({url}): {error}")
    if hashlib.sha1(body).hexdigest() != expected:
        raise SystemExit(f"{what}'s {url} does not match its SHA-1 on Maven Central")
    partial = jar.with_suffix(".partial")
    partial.write_bytes(body)
    os.replace(partial, jar)


def s3a_settings(env=os.environ) -> dict:
    """Spark's settings for s3a:// from AWS's conventions in env (no secret among them)."""
    settings = {"spark.delta.logStore.s3a.impl": LOG_STORE,
                "spark.hadoop.fs.s3a.aws.credentials.provider": DEFAULT_CHAIN,
                "spark.hadoop.fs.s3a.create.conditional.enabled": "true",
                CHECKSUM_FILE: "false"}
    endpoint = env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL")
    if endpoint:
        url = urlparse(endpoint)
        settings.update({"spark.hadoop.fs.s3a.endpoint": f"{url.scheme}://{url.hostname}"
                                                          + (f":{url.port}" if url.port else ""),
                         "spark.hadoop.fs.s3a.path.style.access": "true",
                         "spark.hadoop.fs.s3a.connection.ssl.enabled": str(url.scheme == "https").lower()})
    region = env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or ("us-east-1" if endpoint else "")
    if region:
        settings["spark.hadoop.fs.s3a.endpoint.region"] = region
    return settings



def conditional_put_refused(spark, folder: str) -> bool:
    """Put a new key below folder twice, each only if absent, through the session's S3A: was the second refused?"""
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

def fetch_command(argv, doc: str, jars_of, folder: Path, what: str, module: str) -> int:
    """A connector module's command line: fetch its JARs (jars_of(fetch)) into folder and say how many and
    how big, or with --status only say where they are. what: its name in a line; module: its module."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--status", action="store_true", help="say where the connector is, fetch nothing")
    args = parser.parse_args(argv)
    jars = jars_of(fetch=not args.status)
    if not jars:
        print(f"no {what} yet: python -m {module}")
        return 0
    size = sum(Path(jar).stat().st_size for jar in jars)
    print(f"{what}: {len(jars)} JAR{'s' if len(jars) > 1 else ''}, {size / 2**20:.1f} MiB in {folder}")
    return 0


def main(argv=None) -> int:
    return fetch_command(argv, __doc__, connector_jars, connector_dir(), "S3 connector", "shoptoolkit.storage.s3_connector")


if __name__ == "__main__" and "__file__" in globals():
    sys.exit(main())
