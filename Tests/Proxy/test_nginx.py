"""PARLEY_TRUSTED_PROXIES with Debian's nginx in front of a real `parley serve`.

Each test starts its own Parley (fresh data folder, open sign-up, PARLEY_TRUSTED_PROXIES=127.0.0.1 unless it says
otherwise) and its own nginx, so every throttle starts empty. nginx runs in the foreground as the current user
(`daemon off; master_process off`), with its config, pid file, log and temp folders in a temp folder, and has two
servers in front of the same Parley: `plain` forwards `X-Forwarded-Proto: $scheme` (http) and `https` forwards
`X-Forwarded-Proto: https`, as a TLS-terminating proxy would. Both append the visitor's address to X-Forwarded-For
and reach Parley from 127.0.0.1. Visitors connect from 127.0.0.5, .6, .7 and .8 (Linux routes all of 127.0.0.0/8 to
lo). The request log is not checked: it does not print the client's address.
"""
import http.client
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "PythonSupport"))
from parley_http import CookieClient, free_port, stop  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PARLEY = os.path.join(ROOT, ".build", "debug", "parley")
NGINX = "/usr/sbin/nginx"
PASSWORD = "correct horse battery staple"
ADMIN = "admin@example.com"

if not os.access(NGINX, os.X_OK):
    pytest.skip(f"{NGINX} is missing: install Debian's nginx (scripts/install-deps.sh --test)", allow_module_level=True)


def parley_environment(trusted_proxies):
    """The server's environment: fast hashing, open sign-up, no shutdown grace, no real provider, and
    PARLEY_TRUSTED_PROXIES when `trusted_proxies` is not None."""
    env = dict(os.environ, PARLEY_BCRYPT_COST="4", PARLEY_LOG_LEVEL="warning", PARLEY_SHUTDOWN_GRACE="0",
               PARLEY_SIGNUP="open")
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "PARLEY_CONFIG",
                 "PARLEY_TRUSTED_PROXIES", "PARLEY_COOKIE_SECURE"):
        env.pop(name, None)
    if trusted_proxies is not None:
        env["PARLEY_TRUSTED_PROXIES"] = trusted_proxies
    return env


def wait_healthy(port, process, deadline=15):
    """Polls GET /healthz on `port` until it answers 200; fails when `process` exits or the deadline passes."""
    until = time.monotonic() + deadline
    while time.monotonic() < until:
        assert process.poll() is None, f"process {process.args[0]} exited with {process.returncode}"
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        try:
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        finally:
            connection.close()
        time.sleep(0.05)
    raise AssertionError(f"nothing healthy on port {port} after {deadline} s")


NGINX_LOCATION = """
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto {proto};
            proxy_set_header Host $host;
            proxy_buffering off;
        }}"""

NGINX_CONFIG = """daemon off;
master_process off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {folder}/client_body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    server {{
        listen 127.0.0.1:{plain};{plain_location}
    }}
    server {{
        listen 127.0.0.1:{https};{https_location}
    }}
}}
"""


class Stack:
    """A running `parley serve` (fresh data folder) behind nginx. `parley`, `plain` and `https` are ports: Parley's own,
    and nginx's two servers (X-Forwarded-Proto $scheme and https)."""

    def __init__(self, folder):
        self.folder = folder
        self.processes = []

    def start(self, trusted_proxies):
        data = os.path.join(self.folder, "data")
        os.mkdir(data)
        parley = subprocess.Popen([PARLEY, "serve", "--port", "0", "--data-dir", data], cwd=ROOT,
                                  env=parley_environment(trusted_proxies), stdout=subprocess.PIPE, text=True)
        self.processes.append(parley)
        line = parley.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert match, f"parley serve did not start: {line!r}"
        self.parley = int(match.group(1))
        wait_healthy(self.parley, parley)
        for attempt in range(3):  # another program may take a port picked by free_port() before nginx binds it
            self.plain, self.https = free_port(), free_port()
            if self.start_nginx():
                return self
        raise AssertionError("nginx did not start: " + self.nginx_log())

    def start_nginx(self):
        """Writes the config and starts nginx; whether both its servers answer (through to Parley)."""
        config = os.path.join(self.folder, "nginx.conf")
        with open(config, "w") as file:
            file.write(NGINX_CONFIG.format(
                folder=self.folder, plain=self.plain, https=self.https,
                plain_location=NGINX_LOCATION.format(upstream=self.parley, proto="$scheme"),
                https_location=NGINX_LOCATION.format(upstream=self.parley, proto="https")))
        nginx = subprocess.Popen([NGINX, "-p", self.folder, "-c", config, "-e", os.path.join(self.folder, "error.log")],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.processes.append(nginx)
        try:
            wait_healthy(self.plain, nginx)
            wait_healthy(self.https, nginx)
            return True
        except AssertionError:
            stop(nginx)
            return False

    def nginx_log(self):
        """nginx's error log."""
        path = os.path.join(self.folder, "error.log")
        return open(path).read() if os.path.exists(path) else "(no error log)"

    def stop(self):
        for process in reversed(self.processes):
            stop(process)


@pytest.fixture()
def start_stack():
    """Starts a Stack: `start_stack()` trusts 127.0.0.1 (nginx), `start_stack(None)` trusts nobody. All of them stop
    and their folders go at the end of the test."""
    stacks = []

    def start(trusted_proxies="127.0.0.1"):
        stacks.append(Stack(tempfile.mkdtemp(prefix="parley-proxy-")))
        return stacks[-1].start(trusted_proxies)

    yield start
    for stack in stacks:
        stack.stop()
        shutil.rmtree(stack.folder, ignore_errors=True)


class Visitor(CookieClient):
    """A cookie-keeping client whose connections to `port` start from the loopback address `source`."""

    def sign_in(self, email, password, headers=None):
        return self.post_form("/login", {"email": email, "password": password}, headers)

    def sign_up(self, email, password=PASSWORD):
        return self.post_form("/signup", {"email": email, "password": password})


def create_account(stack, email=ADMIN):
    """Signs up through nginx from 127.0.0.8 (the first account is the admin)."""
    reply = Visitor(stack.plain, "127.0.0.8").sign_up(email)
    assert reply.status == 303, f"sign-up: {reply.status} {reply.text[:300]}"


def fail_logins(visitor, count=10):
    """Signs in `count` times with a wrong password, each refused with 401."""
    for attempt in range(1, count + 1):
        reply = visitor.sign_in(ADMIN, "not the password")
        assert reply.status == 401, f"failed sign-in {attempt}: {reply.status}"


def assert_throttled(reply):
    assert reply.status == 429, f"expected 429, got {reply.status}"
    assert int(reply.headers["Retry-After"]) > 0


def assert_signed_in(reply):
    assert reply.status == 303, f"expected 303 (signed in), got {reply.status}"
    assert any(cookie.startswith("parley_session=") for cookie in reply.cookies())


def cookie(reply, name):
    """The Set-Cookie header for `name`, as its lower-cased attributes (first item: name=value)."""
    for header in reply.cookies():
        if header.startswith(name + "="):
            return [part.strip().lower() for part in header.split(";")]
    raise AssertionError(f"no {name} cookie in {reply.cookies()}")


def test_failed_logins_throttle_only_the_visitor_who_failed(start_stack):
    """10 failed sign-ins from 127.0.0.5 make its 11th try 429 with Retry-After (even with the right password), while
    127.0.0.6, behind the same nginx, still signs in with the right password (303 and a session cookie)."""
    stack = start_stack()
    create_account(stack)
    guesser = Visitor(stack.plain, "127.0.0.5")
    fail_logins(guesser)
    assert_throttled(guesser.sign_in(ADMIN, "not the password"))
    assert_throttled(guesser.sign_in(ADMIN, PASSWORD))
    assert_signed_in(Visitor(stack.plain, "127.0.0.6").sign_in(ADMIN, PASSWORD))


def test_a_spoofed_forwarded_for_neither_escapes_nor_shifts_the_throttle(start_stack):
    """X-Forwarded-For written by the visitor proves nothing: nginx appends the real address and Parley reads the
    right-most hop. Throttled 127.0.0.5 claiming to be 127.0.0.9 still gets 429; 127.0.0.7 claiming to be the throttled
    127.0.0.5 signs in (303). From an untrusted peer (127.0.0.5 straight to Parley) the header is ignored: 429."""
    stack = start_stack()
    create_account(stack)
    guesser = Visitor(stack.plain, "127.0.0.5")
    fail_logins(guesser)
    assert_throttled(guesser.sign_in(ADMIN, PASSWORD, headers={"X-Forwarded-For": "127.0.0.9"}))
    assert_signed_in(Visitor(stack.plain, "127.0.0.7").sign_in(ADMIN, PASSWORD, headers={"X-Forwarded-For": "127.0.0.5"}))
    direct = Visitor(stack.parley, "127.0.0.5")
    assert_throttled(direct.sign_in(ADMIN, PASSWORD, headers={"X-Forwarded-For": "127.0.0.9"}))


def test_unknown_share_links_throttle_only_the_guesser(start_stack):
    """30 unknown share links from 127.0.0.5 are each 404; the next is 429 with Retry-After. 127.0.0.6 still gets 404
    for an unknown link, not 429."""
    stack = start_stack()
    guesser = Visitor(stack.plain, "127.0.0.5")
    for attempt in range(1, 31):
        reply = guesser.request("GET", f"/s/{secrets.token_urlsafe(16)}")
        assert reply.status == 404, f"unknown link {attempt}: {reply.status}"
    assert_throttled(guesser.request("GET", f"/s/{secrets.token_urlsafe(16)}"))
    assert Visitor(stack.plain, "127.0.0.6").request("GET", f"/s/{secrets.token_urlsafe(16)}").status == 404


def test_sign_ups_throttle_only_the_address_that_signed_up(start_stack):
    """10 sign-ups from 127.0.0.5 (each a new browser) succeed; the 11th is 429 with Retry-After, while 127.0.0.6
    still signs up (303)."""
    stack = start_stack()
    for number in range(1, 11):
        reply = Visitor(stack.plain, "127.0.0.5").sign_up(f"user{number}@example.com")
        assert reply.status == 303, f"sign-up {number}: {reply.status}"
    assert_throttled(Visitor(stack.plain, "127.0.0.5").sign_up("user11@example.com"))
    assert Visitor(stack.plain, "127.0.0.6").sign_up("user12@example.com").status == 303


def test_without_trusted_proxies_everyone_behind_nginx_shares_the_throttle(start_stack):
    """Why the setting exists: without PARLEY_TRUSTED_PROXIES every visitor behind nginx has nginx's address, so 10
    failed sign-ins from 127.0.0.5 make 127.0.0.6's right password 429 too."""
    stack = start_stack(None)
    create_account(stack)
    fail_logins(Visitor(stack.plain, "127.0.0.5"))
    assert_throttled(Visitor(stack.plain, "127.0.0.6").sign_in(ADMIN, PASSWORD))


def test_forwarded_https_makes_cookies_secure_and_host_prefixed(start_stack):
    """Through nginx's server that sends X-Forwarded-Proto: https, /login sets `__Host-parley_csrf` with Secure, that
    cookie is accepted back by sign-up, and the session cookie is Secure too. Through the http server, and straight to
    Parley (from 127.0.0.1 without the header, or from untrusted 127.0.0.5 with it), the cookie is `parley_csrf` without
    Secure."""
    stack = start_stack()
    secure = Visitor(stack.https, "127.0.0.5")
    csrf = cookie(secure.request("GET", "/login"), "__Host-parley_csrf")
    assert "secure" in csrf and "path=/" in csrf, csrf
    signed_up = secure.sign_up(ADMIN)
    assert signed_up.status == 303, f"sign-up over https: {signed_up.status} {signed_up.text[:300]}"
    assert "secure" in cookie(signed_up, "parley_session")
    assert "secure" in cookie(signed_up, "__Host-parley_csrf")

    for visitor, headers in ((Visitor(stack.plain, "127.0.0.6"), {}),
                             (Visitor(stack.parley, "127.0.0.1"), {}),
                             (Visitor(stack.parley, "127.0.0.5"), {"X-Forwarded-Proto": "https"})):
        reply = visitor.request("GET", "/login", headers=headers)
        assert "secure" not in cookie(reply, "parley_csrf"), (visitor.port, visitor.source)
        assert not any(header.startswith("__Host-") for header in reply.cookies())
