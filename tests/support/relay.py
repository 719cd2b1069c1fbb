"""An HTTP proxy on a loopback port in front of a test's local store (moto's S3, fake-gcs-server): it notes
each request's method and target, and can take a condition off every request, as an older server or a
careless proxy in between would ignore it.

    with Proxy(s3.url) as proxy:                                     # every request seen
        ... AWS_ENDPOINT_URL=proxy.url ...;  proxy.requests          # [(method, target), ...]
    Proxy(s3.url, headers=("if-none-match", "expect"))               # S3's put-if-absent dropped
    Proxy(gcs.url, query=("ifGenerationMatch",))                     # GCS's create-if-absent dropped
    Proxy(gcs.url, refuse=(403, body))                               # every request answered so, none passed on
    Proxy(gcs.url, refuse=(403, body), agents=("java", "hadoop"))    # only the JVM's (by its User-Agent)
"""
import http.client
import http.server
import threading
import urllib.parse


class Proxy(http.server.ThreadingHTTPServer):
    """The proxy: headers (lower case) and query parameters named here are dropped from every request it
    forwards; dropped counts the requests that lost a query parameter."""

    def __init__(self, upstream: str, headers: tuple = (), query: tuple = (), refuse: tuple = (), agents: tuple = ()):
        self.upstream, self.requests, self.dropped = urllib.parse.urlparse(upstream), [], 0
        self.refuse = refuse  # (status, body: S3's XML or GCS's JSON) a store gives who it does not let in
        self.agents = agents  # refuse only requests whose User-Agent holds one of these words (lower case)
        self.dropped_headers, self.dropped_query = headers, query
        super().__init__(("127.0.0.1", 0), Forward)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown()
        self.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Forward(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self) -> bytes:
        """The request's body as it came, chunked or not."""
        if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))
        raw = b""
        while True:
            size_line = self.rfile.readline()
            raw += size_line
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                break
            raw += self.rfile.read(size + 2)
        while True:  # trailers, then the blank line
            line = self.rfile.readline()
            raw += line
            if line in (b"\r\n", b"\n", b""):
                return raw

    def target(self) -> str:
        """The request's path and query, less the query parameters the proxy drops."""
        if not self.server.dropped_query:
            return self.path
        parts = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        kept = [(name, value) for name, value in query if name not in self.server.dropped_query]
        self.server.dropped += len(kept) < len(query)
        return urllib.parse.urlunsplit(("", "", parts.path, urllib.parse.urlencode(kept), ""))

    def forward(self):
        self.server.requests.append((self.command, urllib.parse.unquote(self.path)))
        body = self.body()
        agent = self.headers.get("User-Agent", "").lower()
        if self.server.refuse and (not self.server.agents or any(word in agent for word in self.server.agents)):
            return self.answer(*self.server.refuse)
        upstream = http.client.HTTPConnection(self.server.upstream.hostname, self.server.upstream.port, timeout=60)
        upstream.putrequest(self.command, self.target(), skip_host=True, skip_accept_encoding=True)
        for key, value in self.headers.items():
            if key.lower() not in self.server.dropped_headers:
                upstream.putheader(key, value)
        upstream.endheaders(body)
        answer = upstream.getresponse()
        payload = answer.read()
        self.send_response(answer.status)
        for key, value in answer.getheaders():
            if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(key, value)
        self.send_header("Content-Length", answer.getheader("Content-Length") if self.command == "HEAD"
                         else str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)
        upstream.close()

    def answer(self, status: int, text: str):
        self.send_response(status)
        self.send_header("Content-Type", "application/xml" if text.startswith("<") else "application/json")
        self.send_header("Content-Length", str(len(text.encode())))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(text.encode())

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_PATCH = forward
