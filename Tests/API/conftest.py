"""Fixtures for the JSON API suites: a real `parley serve` on a free loopback port with a fresh data folder, whose
models are a real `parley-dev mock-upstream`'s and the built-in demo model, and helpers to make users, session tokens
and API keys.

The models: `mock-fast` (priced, seeing images), `mock-slow` (100 ms a token) and `parley-demo`. Sign-up is open, the
first account (`admin@example.com`, made by the `server` fixture) is the admin, and images may weigh 1 MB each.
"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass

import pytest

from api_calls import Api

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "PythonSupport"))
from parley_http import CookieClient, free_port, healthy, stop, wait_for  # noqa: E402
from parley_http import mock_upstream as running_mock  # noqa: E402
import throwaway_postgres  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PARLEY = os.path.join(ROOT, ".build", "debug", "parley")
PARLEY_DEV = os.path.join(ROOT, ".build", "debug", "parley-dev")
PASSWORD = "correct horse battery staple"
ADMIN = "admin@example.com"
MAX_UPLOAD_MB = 1


@dataclass
class RunningServer:
    """A running Parley: its base URL and port, its data folder, the mock upstream's port, and the admin's session."""
    url: str
    port: int
    data: str
    mock_port: int
    admin_token: str

    def client(self):
        """A cookie-keeping form client of this server (for sign-up and the admin's pages)."""
        return CookieClient(self.port)

    def sign_up(self, email=None):
        """Makes an account through the sign-up form; returns its email."""
        email = email or f"user-{uuid.uuid4().hex[:12]}@example.com"
        reply = self.client().post_form("/signup", {"email": email, "password": PASSWORD})
        assert reply.status == 303, f"sign-up of {email} answered {reply.status}: {reply.text[:300]}"
        return email

    def login(self, email, password=PASSWORD):
        """A session token from `POST /api/login`."""
        reply = CookieClient(self.port).request("POST", "/api/login", body={"email": email, "password": password})
        assert reply.status == 200, f"login of {email} answered {reply.status}: {reply.text}"
        return reply.json()["token"]

    def new_user(self):
        """A new account's email and session token."""
        email = self.sign_up()
        return email, self.login(email)

    def admin_client(self):
        """The admin's form client, signed in, holding the CSRF token of its session (from a page's meta tag)."""
        admin = self.client()
        assert admin.post_form("/login", {"email": ADMIN, "password": PASSWORD}).status == 303
        page = admin.request("GET", "/admin/users")
        admin.form_token = html.unescape(re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1))
        return admin

    def make_key(self, token, name="tests"):
        """A personal API key (`pk-…`) made with `POST /api/keys` under the session `token`."""
        reply = CookieClient(self.port).request(
            "POST", "/api/keys", body={"name": name}, headers={"Authorization": f"Bearer {token}"})
        assert reply.status == 201, f"making a key answered {reply.status}: {reply.text}"
        return reply.json()["key"]


def mock_models_config(mock_port):
    """The PARLEY_CONFIG of the suite: the mock upstream's models and the demo model."""
    return {
        "providers": [{"id": "mock", "kind": "openai", "base_url": f"http://127.0.0.1:{mock_port}/v1",
                       "api_key_env": "MOCK_API_KEY"}],
        "models": [
            {"id": "mock-fast", "provider": "mock", "vision": True, "price": {"input": 10, "output": 20}},
            {"id": "mock-slow", "provider": "mock"},
            {"id": "mock-cite", "provider": "mock"},
            {"id": "parley-demo"},
        ],
    }


def parley_environment(config_path, **extra):
    """The server's environment: open sign-up without a rate, fast hashing, no provider but the suite's, small
    uploads, no limit on sends; with `PARLEY_TEST_DATABASE=postgres`, a new database of the test PostgreSQL."""
    if os.environ.get("PARLEY_TEST_DATABASE") == "postgres":
        extra.setdefault("PARLEY_DATABASE_URL", throwaway_postgres.new_database_url())
    environment = dict(os.environ, PARLEY_BCRYPT_COST="4", PARLEY_LOG_LEVEL="warning", PARLEY_SHUTDOWN_GRACE="0",
                       PARLEY_SIGNUP="open", PARLEY_CONFIG=config_path, MOCK_API_KEY="test-key",
                       PARLEY_DEMO_TOKEN_DELAY_MS="5", PARLEY_MAX_UPLOAD_MB=str(MAX_UPLOAD_MB), PARLEY_SEND_RATE="0",
                       PARLEY_SIGNUP_RATE="0",
                       **extra)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY",
                 "PARLEY_TRUSTED_PROXIES"):
        environment.pop(name, None)
    return environment


@pytest.fixture(scope="session")
def mock_upstream():
    """A `parley-dev mock-upstream` on a free port, for the whole session; yields its port."""
    with running_mock(PARLEY_DEV, tokens=30) as port:
        yield port


@pytest.fixture(scope="session")
def server(mock_upstream):
    """A `parley serve` on a free loopback port with a fresh data folder, for the whole session; yields a
    `RunningServer` (`.url`, `.port`, …) whose admin has signed up."""
    folder = tempfile.mkdtemp(prefix="parley-api-")
    config_path = os.path.join(folder, "models.json")
    with open(config_path, "w") as file:
        json.dump(mock_models_config(mock_upstream), file)
    port = free_port()
    process = subprocess.Popen([PARLEY, "serve", "--port", str(port), "--data-dir", folder], cwd=ROOT,
                               env=parley_environment(config_path), stdout=subprocess.DEVNULL)
    try:
        wait_for(lambda: process.poll() is not None or healthy(port), what="parley serve")
        assert process.poll() is None, "parley serve exited at start"
        running = RunningServer(url=f"http://127.0.0.1:{port}", port=port, data=folder, mock_port=mock_upstream,
                                admin_token="")
        running.sign_up(ADMIN)
        running.admin_token = running.login(ADMIN)
        yield running
    finally:
        stop(process)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture()
def owner(server):
    """A new user's API client, with a session token."""
    _, token = server.new_user()
    return Api(server.port, token)


@pytest.fixture()
def stranger(server):
    """Another new user's API client, with an API key."""
    _, token = server.new_user()
    return Api(server.port, server.make_key(token))


@pytest.fixture()
def anonymous(server):
    """A client without credentials."""
    return Api(server.port)
