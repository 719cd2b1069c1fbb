"""A local S3 server for the toolkit's tests and for a first try on a bucket: moto's, on a free loopback port.

    python tests/support/local_s3.py      # make run-s3: September on s3a://shop/course, as make run does on a folder

    with LocalS3() as s3:          # a test's server: its bucket made, stopped on the way out
        env = s3.env("course")     # AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ..., SHOP_ROOT=s3a://shop/course

moto accepts any key and secret; the scripts find the server and the credentials where AWS's own tools
look (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION).
"""
import logging
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUCKET = "shop"
COURSE = (["make_days.py"], ["backfill.py", "2026-09-02", "2026-10-01"], ["check_month.py", "2026-09"])


class LocalS3:
    """moto's S3 server on 127.0.0.1 and a free port (or the port given), with BUCKET made; stopped by its
    own handle. moto keeps its buckets in this process: a server started again on the same port serves
    what the stopped one held."""

    def __init__(self, port: int = 0):
        self.port = port

    def __enter__(self):
        import boto3
        from moto.server import ThreadedMotoServer
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # else a line a request
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self.server.start()
        self.url = "http://{}:{}".format(*self.server.get_host_and_port())
        client = boto3.client("s3", endpoint_url=self.url, region_name="us-east-1", aws_access_key_id="testing",
                              aws_secret_access_key="testing")
        if BUCKET not in {bucket["Name"] for bucket in client.list_buckets()["Buckets"]}:
            client.create_bucket(Bucket=BUCKET)
        return self

    def __exit__(self, *exc):
        self.server.stop()

    def env(self, prefix: str) -> dict:
        """This process's environment with the server and a root below BUCKET/prefix (no other AWS_ or SHOP_)."""
        env = {key: value for key, value in os.environ.items() if not key.startswith(("AWS_", "SHOP_"))}
        return {**env, "AWS_ENDPOINT_URL": self.url, "AWS_ACCESS_KEY_ID": "testing",
                "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
                "SHOP_ROOT": f"s3a://{BUCKET}/{prefix}"}


def course(env: dict) -> int:
    """make run's three commands, each a process with env, each shown first; the first failure's exit code."""
    for command in COURSE:
        print(f"$ python {' '.join(command)}", flush=True)
        code = subprocess.run([sys.executable, str(ROOT / command[0]), *command[1:]], env=env).returncode
        if code:
            return code
    return 0


def main() -> int:
    with LocalS3() as s3:
        env = s3.env("course")
        print(f"a local S3 server on {s3.url}; SHOP_ROOT={env['SHOP_ROOT']}", flush=True)
        return course(env)


if __name__ == "__main__":
    sys.exit(main())
