"""What the Python suites that drive a real `parley serve` over HTTP share (Tests/Proxy, Tests/Real): a cookie-keeping
client that posts forms with the sign-in page's CSRF token, free loopback ports, and stopping processes."""
import html
import http.client
import json
import re
import socket
import subprocess
from urllib.parse import urlencode


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
