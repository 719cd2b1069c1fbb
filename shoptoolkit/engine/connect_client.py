"""A script's Spark Connect session on SPARK_REMOTE, which gives up at once when its server has gone.

    from shoptoolkit.engine.connect_client import remote_session
    spark = remote_session("sc://localhost:15002/;token=...", "load_day")

pyspark's client tries a call again for about 10 minutes while its server is UNAVAILABLE. Here it
tries again only while something still listens at the server's address: a server that died (killed,
out of memory) ends the script at once, with spark_errors.py's one line naming the server.
"""
import socket

from shoptoolkit.engine.spark_errors import remote_address
from shoptoolkit.errors import ToolkitError


def listening(url: str) -> bool:
    """Something accepts connections at the url's host and port (a url without them: assumed so)."""
    found = remote_address(url)
    if not found:
        return True
    host, port = found[len("sc://"):].rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
        return True
    except OSError:
        return False


def remote_problem(url: str) -> str:
    """Why nothing answers at SPARK_REMOTE's host and port, or '' (the client would retry for minutes)."""
    if listening(url):
        return ""
    return (f"no Spark Connect server answers at {remote_address(url)} (SPARK_REMOTE): start one with "
            f'eval "$(python spark_server.py start)", or unset SPARK_REMOTE to run Spark in this process')


def while_listening(url: str):
    """pyspark's default retry policy, but no retry once nothing listens at url."""
    from pyspark.sql.connect.client.retries import DefaultPolicy

    class WhileListening(DefaultPolicy):
        def can_retry(self, error: BaseException) -> bool:
            return super().can_retry(error) and listening(url)
    return WhileListening()


def remote_session(url: str, app_name: str):
    """A session on the Connect server at url, checked to answer first, that stops retrying once it has gone."""
    from pyspark.sql import SparkSession
    problem = remote_problem(url)
    if problem:
        raise ToolkitError(problem)
    session = SparkSession.builder.remote(url).appName(app_name).getOrCreate()
    session.client.set_retry_policies([while_listening(url)])
    return session
