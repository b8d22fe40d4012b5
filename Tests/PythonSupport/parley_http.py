"""What the Python suites that drive a real `parley serve` over HTTP share (Tests/API, Tests/Instances, Tests/Proxy,
Tests/Real, Tests/Browser): a cookie-keeping client that posts forms with the sign-in page's CSRF token, free loopback
ports, waiting for a condition, and starting and stopping the processes they run (the mock upstream, the OpenID
provider)."""
import contextlib
import html
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
from urllib.parse import urlencode

SUPPORT = os.path.dirname(os.path.abspath(__file__))


def free_port():
    """A loopback port nobody listens on now (for servers that cannot pick one themselves)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stop(process, grace=10):
    """Terminates a process, killing it when it does not exit within `grace` seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


class Reply:
    """A response's status, headers and text."""

    def __init__(self, status, headers, text):
        self.status, self.headers, self.text = status, headers, text

    def cookies(self):
        """The Set-Cookie headers."""
        return self.headers.get_all("Set-Cookie") or []

    def json(self):
        return json.loads(self.text)


class CookieClient:
    """An HTTP client of Parley on `port` that keeps cookies like a browser, its connections starting from the
    loopback address `source` when given; `form` bodies are URL-encoded, `body` ones JSON."""

    def __init__(self, port, source=None):
        self.port, self.source = port, source
        self.cookies = {}
        self.form_token = None

    def extra_headers(self, path):
        """Headers a subclass adds to every request (none here)."""
        return {}

    def request(self, method, path, body=None, form=None, headers=None, timeout=10):
        headers = dict(headers or {}, **self.extra_headers(path))
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        data = None
        if form is not None:
            data = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = "application/json"
        source = (self.source, 0) if self.source else None
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout, source_address=source)
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            reply = Reply(response.status, response.headers, response.read().decode(errors="replace"))
        finally:
            connection.close()
        for header in reply.cookies():
            name, _, rest = header.partition("=")
            value = rest.split(";", 1)[0]
            if value:
                self.cookies[name] = value
            else:
                self.cookies.pop(name, None)
        return reply

    def csrf_token(self):
        """The form token of the sign-in page (fetched once; the cookie it matches is kept)."""
        if self.form_token is None:
            page = self.request("GET", "/login")
            assert page.status == 200, page.status
            match = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
            assert match, "no csrf_token field on /login"
            self.form_token = html.unescape(match.group(1))
        return self.form_token

    def post_form(self, path, fields, headers=None):
        """A form post with the CSRF token added."""
        return self.request("POST", path, form=dict(fields, csrf_token=self.csrf_token()), headers=headers)


def wait_for(condition, seconds=15, what="the condition"):
    """Polls `condition` until it returns something true, for at most `seconds`; returns that."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def healthy(port):
    """Whether something answers 200 on `port`'s `/healthz` (Parley) or `/stats` (the mock)."""
    try:
        for path in ("/healthz", "/stats"):
            if CookieClient(port).request("GET", path, timeout=2).status == 200:
                return True
    except OSError:
        return False
    return False


@contextlib.contextmanager
def mock_upstream(parley_dev, tokens):
    """A `parley-dev mock-upstream` on a free port whose replies are `tokens` tokens; yields its port, stops it
    after."""
    port = free_port()
    process = subprocess.Popen([parley_dev, "mock-upstream", "--port", str(port), "--tokens", str(tokens)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: healthy(port), what="the mock upstream")
        yield port
    finally:
        stop(process)


@contextlib.contextmanager
def openid_provider():
    """A real OpenID Connect provider (oidc-provider-mock, through oidc_provider.py); yields its issuer address, stops
    it after."""
    process = subprocess.Popen([sys.executable, os.path.join(SUPPORT, "oidc_provider.py")],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("port "), f"the provider did not start: {line!r}"
        yield f"http://127.0.0.1:{int(line.split()[1])}"
    finally:
        process.kill()
        process.wait(timeout=15)
