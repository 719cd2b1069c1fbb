"""Where the project's files are: a local folder, or a prefix of an object store's bucket. Every file
operation outside Spark goes through the path location() gives, with pathlib.Path's methods.

    from shoptoolkit.storage import location, remove_tree
    location("/data/shop")                   # PosixPath('/data/shop'), exactly as pathlib makes it
    location("s3a://shop/course") / "lake"   # ObjectPath('s3a://shop/course/lake'): the same methods
    remove_tree(table)                       # shutil.rmtree, or every object below the prefix

A path or a file: URI gives a pathlib.Path and imports nothing more: a local run never loads pyarrow.
s3a://BUCKET/PREFIX and gs://BUCKET/PREFIX give an ObjectPath (object_path.py, over pyarrow.fs; stores.py
says which settings it reads), whose str() is the URI Spark is given. A store parts.py refuses
(abfss://) and any other scheme are refused in one line, a UsageError.
"""
import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

from shoptoolkit.errors import UsageError
from shoptoolkit.storage.parts import STORES

SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")


def location(place):
    """A folder or file given as a path, a file: URI (file:///data/shop, file:/data/shop) or an object
    store's URI, as a pathlib.Path or an ObjectPath."""
    text = str(place)
    if text.startswith("file:"):
        return Path(url2pathname(urlparse(text).path))
    scheme = SCHEME.match(text)
    if not scheme:
        return Path(place)
    parts = STORES.get(scheme.group(1).lower())
    if parts is None:
        raise UsageError(f"{text}: a root is a folder, a file:// URI, or s3a:// or gs:// (not {scheme.group(1)}://)")
    if parts.refused:
        raise UsageError(parts.refused)
    from shoptoolkit.storage.object_path import object_location
    return object_location(text)


def listed_file(uri: str):
    """A file as Spark lists it (DataFrame.inputFiles(): a URI, percent-encoded), as a location."""
    return location(uri if uri.startswith("file:") else unquote(uri))


def is_local(path) -> bool:
    """Whether path is on this machine's file system (a folder's flock, an append, a symlink work there)."""
    return isinstance(path, Path)


def remove_tree(path, ignore_errors: bool = False) -> None:
    """Delete a folder and everything below it: shutil.rmtree, or every object below an ObjectPath;
    ignore_errors: as shutil's (on a store: a prefix with nothing below is no error)."""
    if is_local(path):
        shutil.rmtree(path, ignore_errors=ignore_errors)
    elif path.exists() or not ignore_errors:
        path.remove_tree()
