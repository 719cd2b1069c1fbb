"""An object of a bucket (or a prefix of its keys) with the pathlib.Path methods the toolkit's file operations
use, over a pyarrow FileSystem: what storage.location() gives for an s3a:// or gs:// URI.

    root = object_location("s3a://shop/course")
    day = root / "landing" / "orders" / "2026-09-15.csv"
    str(day)                   # s3a://shop/course/landing/orders/2026-09-15.csv, the URI Spark is given
    day.relative_to(root)      # PurePosixPath('landing/orders/2026-09-15.csv'), as below a folder
    with day.open("rb") as raw:     # streamed in ranged reads of READ_AHEAD bytes, never held whole
        ...

A store has objects and no folders: a "folder" exists while an object is below it, so mkdir does nothing,
and glob and iterdir list one level of names. There is no __fspath__: builtin open(), os.path and shutil
refuse an ObjectPath instead of reaching a local file of the same name. A store's error (no bucket, bad
credentials, no answer) is a ToolkitError naming the path (stores.told); a missing object is FileNotFoundError.
"""
import errno
import io
from fnmatch import fnmatchcase
from pathlib import PurePosixPath
from types import SimpleNamespace

from shoptoolkit.storage.stores import filesystem, split_uri, told

READ_AHEAD = 8 << 20  # bytes a read asks the store for: a day file of 100s of MB in few requests
WRITE_BUFFER = 1 << 20


def object_location(text: str) -> "ObjectPath":
    """The ObjectPath of an object store's URI; its bucket is looked at once a process (a ToolkitError
    `cannot reach URI: ...` when it is missing, refuses the credentials or does not answer)."""
    path = ObjectPath(*split_uri(text))
    with told(str(path)):
        filesystem(path.store)
    return path


class ObjectPath:
    """A key below a bucket, as a path: see the module's docstring."""
    __slots__ = ("store", "key", "listed")

    def __init__(self, store, key: str = "", listed=None):
        # listed: the object's FileInfo when the path came from a listing (iterdir, glob, rglob): its stat()
        # answers from it without a request, as a DirEntry of os.scandir answers from its directory's read.
        self.store, self.key, self.listed = store, key.strip("/"), listed

    def __truediv__(self, other) -> "ObjectPath":
        part = str(other).strip("/")
        return ObjectPath(self.store, f"{self.key}/{part}" if self.key and part else self.key or part)

    def __str__(self) -> str:
        return self.store.uri(self.key)

    def __repr__(self) -> str:
        return f"ObjectPath({str(self)!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, ObjectPath) and (self.store, self.key) == (other.store, other.key)

    def __hash__(self) -> int:
        return hash((self.store, self.key))

    def __lt__(self, other) -> bool:
        return str(self) < str(other)

    @property
    def name(self) -> str:
        return self.key.rpartition("/")[2]

    @property
    def stem(self) -> str:
        return PurePosixPath(self.key).stem

    @property
    def suffix(self) -> str:
        return PurePosixPath(self.key).suffix

    @property
    def parent(self) -> "ObjectPath":
        return ObjectPath(self.store, self.key.rpartition("/")[0])

    def as_uri(self) -> str:
        return str(self)

    def resolve(self) -> "ObjectPath":
        return self

    def relative_to(self, other) -> PurePosixPath:
        """This path below other, relative (what project_paths.shown prints); ValueError when it is not below."""
        if isinstance(other, ObjectPath) and other.store == self.store and (
                not other.key or self.key == other.key or self.key.startswith(other.key + "/")):
            return PurePosixPath(self.key[len(other.key):].lstrip("/"))
        raise ValueError(f"{self} is not below {other}")

    def _fs(self):
        return filesystem(self.store)

    def _kind(self) -> str:
        """'File', 'Directory' (a prefix some object is below) or 'NotFound'."""
        with told(str(self)):
            return self._fs().get_file_info(self.store.path(self.key)).type.name

    def exists(self) -> bool:
        return self._kind() != "NotFound"

    def is_file(self) -> bool:
        return self._kind() == "File"

    def is_dir(self) -> bool:
        return self._kind() == "Directory"

    def stat(self) -> SimpleNamespace:
        """Its size and time, as st_size and st_mtime_ns (the fields the toolkit reads): from the listing
        that gave this path, else asked of the store."""
        info = self.listed
        if info is None:
            with told(str(self)):
                info = self._fs().get_file_info(self.store.path(self.key))
        if info.type.name != "File":
            raise FileNotFoundError(errno.ENOENT, "no such object", str(self))
        return SimpleNamespace(st_size=info.size, st_mtime_ns=info.mtime_ns)

    def open(self, mode: str = "r", buffering: int = -1, encoding=None, errors=None, newline=None):
        """A stream of the object: "rb"/"r" read in ranges as it is read, "wb"/"w" written as one object
        when closed; text through io.TextIOWrapper, as builtin open."""
        if mode not in ("r", "rb", "w", "wb"):
            raise ValueError(f"ObjectPath.open: mode {mode!r} (an object store cannot append or update)")
        with told(str(self)):
            if "r" in mode:
                stream = io.BufferedReader(self._fs().open_input_stream(self.store.path(self.key)), READ_AHEAD)
            else:
                stream = io.BufferedWriter(self._fs().open_output_stream(self.store.path(self.key)), WRITE_BUFFER)
        if "b" in mode:
            return stream
        return io.TextIOWrapper(stream, encoding=io.text_encoding(encoding), errors=errors, newline=newline)

    def read_bytes(self) -> bytes:
        with told(str(self)), self.open("rb") as stream:
            return stream.read()

    def read_text(self, encoding=None, errors=None) -> str:
        with told(str(self)), self.open("r", encoding=encoding, errors=errors) as stream:
            return stream.read()

    def write_bytes(self, data) -> int:
        with told(str(self)), self.open("wb") as stream:  # its close uploads the object: inside told
            return stream.write(data)

    def write_text(self, data: str, encoding=None, errors=None, newline=None) -> int:
        with told(str(self)), self.open("w", encoding=encoding, errors=errors, newline=newline) as stream:
            return stream.write(data)

    def iterdir(self):
        """The entries one level below (a prefix with nothing below is empty, not missing)."""
        from pyarrow.fs import FileSelector
        with told(str(self)):
            found = self._fs().get_file_info(FileSelector(self.store.path(self.key), allow_not_found=True))
        return iter([ObjectPath(self.store, f"{self.key}/{info.base_name}", info) for info in found])

    def glob(self, pattern: str):
        """The entries one level below whose names match pattern (fnmatch, as pathlib matches a name)."""
        if "/" in pattern or "**" in pattern:
            raise ValueError(f"ObjectPath.glob matches names one level below, not {pattern!r}")
        return iter([path for path in self.iterdir() if fnmatchcase(path.name, pattern)])

    def rglob(self, pattern: str):
        """The entries at any depth below whose names match pattern."""
        from pyarrow.fs import FileSelector
        with told(str(self)):
            found = self._fs().get_file_info(FileSelector(self.store.path(self.key), True, recursive=True))
        start = len(self.store.path(self.key)) + 1
        return iter([ObjectPath(self.store, f"{self.key}/{info.path[start:]}", info) for info in found
                     if fnmatchcase(info.base_name, pattern)])

    def mkdir(self, mode: int = 0o777, parents: bool = False, exist_ok: bool = False) -> None:
        """Nothing: a store has no folders, an object's key holds its "folders"."""

    def unlink(self, missing_ok: bool = False) -> None:
        if not self.is_file():
            if missing_ok:
                return
            raise FileNotFoundError(errno.ENOENT, "no such object", str(self))
        with told(str(self)):
            self._fs().delete_file(self.store.path(self.key))

    def remove_tree(self) -> None:
        """Delete every object below, then the prefix's own marker if the store keeps one (shutil.rmtree's work
        on a store): on GCS no prefix is left once its objects are gone, and deleting it again is an error."""
        from pyarrow.fs import FileType
        fs, prefix = self._fs(), self.store.path(self.key)
        with told(str(self)):
            fs.delete_dir_contents(prefix)
            if fs.get_file_info(prefix).type != FileType.NotFound:
                fs.delete_dir(prefix)
