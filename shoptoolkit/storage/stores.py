"""The object stores behind ObjectPath: a URI split into its store and key, one pyarrow FileSystem a store
(built once, and its bucket looked at once), and the store's errors told in one line.

    from shoptoolkit.storage.stores import filesystem, split_uri, told
    store, key = split_uri("s3a://shop/course")      # Store('s3a', 'shop', 'shop'), 'course'
    with told("s3a://shop/course"):                   # a store's error as a ToolkitError naming the root
        filesystem(store)

S3 (s3a://BUCKET/KEY) reads its settings as AWS's own tools do: credentials from the AWS SDK's default chain
(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN; AWS_PROFILE and ~/.aws/; an instance role);
an S3-compatible server from AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL (addressed path-style); the region
from AWS_REGION, else AWS_DEFAULT_REGION (us-east-1 with an endpoint; else the bucket's own). Google Cloud
Storage (gs://BUCKET/KEY) reads what Google's own clients read: a local server (an emulator) from
STORAGE_EMULATOR_HOST (http://HOST:PORT, asked without credentials), else Google's application default
credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's login, the metadata server). pyarrow.fs speaks both without
a JVM: failed_day.py and a Spark Connect client have none. Azure's abfss:// is refused before it gets
here (parts.py): untested, and pyarrow's Azure client aborts the process (an uncaught C++ exception)
when it finds no credential.
"""
import datetime as dt
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlparse

from shoptoolkit.errors import ToolkitError

# What each store reads from the environment: a change of any makes a new FileSystem (a test's server).
SETTINGS = {"s3a": ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE",
                    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"),
            "gs": ("STORAGE_EMULATOR_HOST", "GOOGLE_APPLICATION_CREDENTIALS")}
SECRETS = ("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")  # masked in any line shown
CREDENTIALS = {"s3a": "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)",
               "gs": "GOOGLE_APPLICATION_CREDENTIALS (or gcloud auth application-default login)"}
ACCESS = re.compile(r"ACCESS_DENIED|INVALID_ACCESS_KEY_ID|SIGNATURE_DOES_NOT_MATCH|EXPIRED_TOKEN|PERMISSION_DENIED|"
                    r"UNAUTHENTICATED|OAuth2 access token|Forbidden")
SILENCE = re.compile(r"NETWORK_CONNECTION|curlCode|connect to server|resolve host|UNAVAILABLE|timed out|"
                     r"Connection refused|Unable to execute HTTP request", re.I)
# S3A's and the GCS connector's words, in a Java error's trace, for a store that refused who asked, has no
# such bucket, did not answer (the GCS connector's upload to a server that went away mid-request: its Java
# HTTP client's "Unexpected end of file from server").
JAVA_TROUBLE = {"ACCESS_DENIED": re.compile(r"AccessDeniedException|403 Forbidden"),
                "NO_SUCH_BUCKET": re.compile(r"NoSuchBucket"),
                "UNAVAILABLE": re.compile(r"Connection refused|Unable to execute HTTP request|ConnectTimeoutException|"
                                          r"UnknownHostException|Unexpected end of file from server")}
STORE_URI = re.compile(r"\b(s3a|gs)://[^\s:,;'\"]+")
NO_BUCKET = re.compile(r"NO_SUCH_BUCKET|bucket does not exist")
# How long GCS retries a failing request: its client's default is many minutes, a hang before any line.
# An emulator (STORAGE_EMULATOR_HOST) is a server of the user's own, most often on this machine: one that
# does not answer is down, not busy, and is said so sooner.
GCS_RETRIES = dt.timedelta(seconds=20)
EMULATOR_RETRIES = dt.timedelta(seconds=5)


class Unreached(Exception):
    """Why a store cannot be used at all (no bucket, no pyarrow): told() words it as a ToolkitError."""


@dataclass(frozen=True)
class Store:
    """A bucket as its URIs name it: scheme://authority/KEY; root is the bucket's name in its
    FileSystem's paths (root/KEY)."""
    scheme: str
    authority: str
    root: str

    def uri(self, key: str) -> str:
        return f"{self.scheme}://{self.authority}/{key}" if key else f"{self.scheme}://{self.authority}"

    def path(self, key: str) -> str:
        return f"{self.root}/{key}" if key else self.root


def split_uri(text: str) -> tuple:
    """(Store, key) of an object store's URI; a URI that names no bucket is refused."""
    found = urlparse(text)
    scheme, authority, key = found.scheme.lower(), found.netloc, found.path.strip("/")
    if not authority:
        raise ToolkitError(f"{text}: no bucket; a root on {scheme}:// is {scheme}://BUCKET/PREFIX")
    return Store(scheme, authority, authority), key


def filesystem(store: Store):
    """The store's pyarrow FileSystem, built and its bucket looked at once for the environment of now."""
    return reached(store, tuple(os.environ.get(name) for name in SETTINGS[store.scheme]))


@lru_cache(maxsize=None)
def reached(store: Store, settings: tuple):
    """store's FileSystem, once its bucket answers (settings: only the cache's key). A missing bucket is
    refused here: a store lists an absent bucket as empty, and its files as absent."""
    found = new_filesystem(store)
    from pyarrow.fs import FileType
    if found.get_file_info(store.root).type == FileType.NotFound:
        raise Unreached(bucket_missing(store))
    return found


def new_filesystem(store: Store):
    try:
        from pyarrow import fs
    except ImportError:
        raise Unreached(f"a root on {store.scheme}:// needs pyarrow: "
                        f"pip install -r requirements/connect.txt") from None
    if store.scheme == "gs":
        return gcs_filesystem(fs)
    return s3_filesystem(fs, store.root)


def gcs_filesystem(fs):
    """A GcsFileSystem on STORAGE_EMULATOR_HOST's server without credentials when it is set, else on
    Google's with its default credentials."""
    emulator = os.environ.get("STORAGE_EMULATOR_HOST")
    if not emulator:
        return fs.GcsFileSystem(retry_time_limit=GCS_RETRIES)
    url = urlparse(emulator if "://" in emulator else f"http://{emulator}")
    return fs.GcsFileSystem(anonymous=True, scheme=url.scheme, endpoint_override=url.netloc,
                            retry_time_limit=EMULATOR_RETRIES)


def s3_filesystem(fs, bucket: str):
    """An S3FileSystem with AWS's endpoint and region settings; the credentials are the SDK's own chain."""
    region = setting("AWS_REGION", "AWS_DEFAULT_REGION")[0]
    endpoint = setting("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")[0]
    if not endpoint:
        return fs.S3FileSystem(region=region or fs.resolve_s3_region(bucket))
    url = urlparse(endpoint)
    return fs.S3FileSystem(region=region or "us-east-1", endpoint_override=url.netloc.rpartition("@")[2],
                           scheme=url.scheme or "https", force_virtual_addressing=False)


def setting(*names) -> tuple:
    """(value, name) of the first of names set in the environment, else ('', '')."""
    return next(((os.environ[name], name) for name in names if os.environ.get(name)), ("", ""))


@contextmanager
def told(what: str):
    """Inside, a store's error (pyarrow's plain OSError: a missing bucket, bad credentials, no answer; its
    PermissionError: GCS's refusal of who asked) is a ToolkitError `cannot reach WHAT: ...`; a missing file
    stays FileNotFoundError, as pathlib raises it."""
    try:
        yield
    except Unreached as error:
        raise ToolkitError(f"cannot reach {what}: {error}") from None
    except OSError as error:
        if type(error) not in (OSError, PermissionError):
            raise
        raise ToolkitError(f"cannot reach {what}: {reason(what, str(error))}") from None


def reason(what: str, text: str) -> str:
    """Why a store did not answer, in words that name the fix; never a secret."""
    store = split_uri(what)[0]
    if ACCESS.search(text):
        return f"access denied: check {CREDENTIALS[store.scheme]}"
    if NO_BUCKET.search(text):
        return bucket_missing(store)
    if SILENCE.search(text):
        return f"no answer from {endpoint_shown(store)}"
    first = text.strip().splitlines()[0] if text.strip() else "no reason given"
    for name in SECRETS:
        first = first.replace(os.environ[name], "***") if os.environ.get(name) else first
    return first[:300]


def unreached_store(text: str) -> str:
    """A Java error's whole text (Spark's job failing on S3A, say) as `cannot reach ROOT: why`, naming
    the store as the Python side's errors do; '' when it shows no store that failed to answer."""
    found = STORE_URI.search(text)
    word = next((word for word, said in JAVA_TROUBLE.items() if said.search(text)), "")
    if not found or not word:
        return ""
    root = os.environ.get("SHOP_ROOT", "").rstrip("/")  # project_paths.ROOT_ENV: an object store's root is set there
    what = root if root and found.group(0).startswith(root) else found.group(0)
    return f"cannot reach {what}: {reason(what, word)}"


def bucket_missing(store: Store) -> str:
    return f"the bucket {store.root} does not exist"


def endpoint_shown(store: Store) -> str:
    """Where the store's requests go: an S3-compatible server's URL (no user or password), else the cloud's."""
    if store.scheme == "gs":
        emulator = os.environ.get("STORAGE_EMULATOR_HOST")
        return f"{emulator.rstrip('/')}/ (STORAGE_EMULATOR_HOST)" if emulator else "https://storage.googleapis.com/"
    endpoint, name = setting("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
    if not endpoint:
        return "AWS S3 (AWS_REGION " + (setting("AWS_REGION", "AWS_DEFAULT_REGION")[0] or "not set") + ")"
    url = urlparse(endpoint)
    return f"{url.scheme or 'https'}://{url.netloc.rpartition('@')[2]}/ ({name})"
