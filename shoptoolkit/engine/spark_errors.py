"""Any error told in one line, as a script prints it before it exits 1: Spark's and Delta's (their error
class and the first line), a Spark Connect server's refusal, an object store's trouble deep in a Java trace.

    from shoptoolkit.engine.spark_errors import one_line
    one_line(error)     # 'DeltaAnalysisException: ...', or the ToolkitError's own words
"""
import os
import re

from shoptoolkit.errors import ToolkitError
from shoptoolkit.storage.stores import unreached_store

GRPC_STATUS = re.compile(r'status = StatusCode\.(\w+)\s+details = "([^"]*)"')
REMOTE_ADDRESS = re.compile(r"sc://[^/:;]+:\d+")  # a Spark Connect url's host and port, without its token


def one_line(error: BaseException) -> str:
    """A Spark/Delta error as one line: its error class and the first line of its message."""
    if isinstance(error, ToolkitError):
        return str(error)
    refused = connect_refusal(str(error))
    if refused:
        return refused
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if hasattr(error, "java_exception"):  # a Py4JJavaError says only "An error occurred while calling o60"
        text = str(error.java_exception.toString()).strip().splitlines()[0]
        if "://" in str(error):  # an object store's trouble deep in the trace, told as the storage layer tells it
            unreached = unreached_store(str(error))
            if unreached:
                return unreached
    return f"{type(error).__name__}: {text[:300]}"


def connect_refusal(text: str) -> str:
    """A Spark Connect call the server refused (its gRPC status and details) as one line, else ''."""
    found = GRPC_STATUS.search(text)
    if not found:
        return ""
    status, details = found.groups()
    if status == "UNAVAILABLE":  # gRPC's details vary with the moment it went: "Socket closed", ...
        return (f"the Spark Connect server at {remote_address(os.environ.get('SPARK_REMOTE', ''))} (SPARK_REMOTE) "
                f"went away (UNAVAILABLE); a commit it was making landed whole or not at all: see "
                f"python spark_server.py status, start it again and rerun")
    hint = ("; SPARK_REMOTE needs the server's token (python spark_server.py env prints it)"
            if status == "UNAUTHENTICATED" else "")
    return f"Spark Connect refused the request ({status}): {details}{hint}"


def remote_address(url: str) -> str:
    """sc://HOST:PORT of a Spark Connect url (never its token), '' when it names no port."""
    found = REMOTE_ADDRESS.match(url)
    return found.group(0) if found else ""
