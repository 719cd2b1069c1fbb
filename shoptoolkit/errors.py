"""The toolkit's error type, and every error told in one line: what a script prints before it exits 1.

    from shoptoolkit.errors import ToolkitError, run_main
    return run_main(body, args.verbose)     # body's error as `error: ...` on stderr, exit 1
"""
import os
import re
import sys

GRPC_STATUS = re.compile(r'status = StatusCode\.(\w+)\s+details = "([^"]*)"')
REMOTE_ADDRESS = re.compile(r"sc://[^/:;]+:\d+")  # a Spark Connect url's host and port, without its token


class ToolkitError(Exception):
    """A problem the user can fix, told in one line; scripts print it and exit 1."""


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
            from shoptoolkit.storage.stores import unreached_store  # (which imports this module)
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


def run_main(main_body, verbose: bool) -> int:
    """Run a script's work: one line and exit 1 on any error, the full trace with --verbose."""
    verbose = verbose or bool(os.environ.get("SHOP_VERBOSE"))
    try:
        return main_body()
    except Exception as error:
        if verbose:
            raise
        print(f"error: {one_line(error)}", file=sys.stderr)
        return 1
