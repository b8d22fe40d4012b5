"""Fixtures for the several-instances suite: a throwaway PostgreSQL from Debian's package, a real
`parley-dev mock-upstream`, and real `parley serve` processes sharing one database of it (each with a data folder of
its own), as a load balancer without sticky sessions would spread one site over them."""
import http.client
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "PythonSupport"))
from parley_http import CookieClient, free_port, healthy, openid_provider, stop, wait_for  # noqa: E402
from parley_http import mock_upstream as running_mock  # noqa: E402
import throwaway_postgres  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PARLEY = os.path.join(ROOT, ".build", "debug", "parley")
PARLEY_DEV = os.path.join(ROOT, ".build", "debug", "parley-dev")
PASSWORD = "correct horse battery staple"


class EventStream:
    """A conversation's event stream (`GET /c/{id}/events`) read on a thread of its own into a queue of
    `(event, id, data)`; `last_event_id` resumes, as a browser's reconnection does."""

    def __init__(self, port, token, conversation_id, last_event_id=None):
        headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
        if last_event_id:
            headers["Last-Event-ID"] = last_event_id
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.connection.request("GET", f"/c/{conversation_id}/events", headers=headers)
        self.response = self.connection.getresponse()
        assert self.response.status == 200, self.response.status
        self.events = queue.Queue()
        self.received = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        fields = {}
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\r\n")
                if line == "":
                    if "data" in fields:
                        data = fields["data"]
                        try:
                            data = json.loads(data)
                        except ValueError:
                            pass
                        self.events.put((fields.get("event", "message"), fields.get("id"), data))
                    fields = {}
                elif not line.startswith(":"):
                    name, _, value = line.partition(":")
                    fields[name] = value[1:] if value.startswith(" ") else value
        except (OSError, ValueError, AttributeError):  # closed by `close()` while reading
            pass
        self.events.put(None)

    def until(self, accept, seconds=30):
        """The events read until (and with) the first that `accept` takes; fails after `seconds` or at the stream's
        end."""
        taken = []
        deadline = time.monotonic() + seconds
        while True:
            try:
                event = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no accepted event within {seconds} s; read {taken}")
            assert event is not None, f"the stream ended; read {taken}"
            taken.append(event)
            self.received.append(event)
            if accept(event):
                return taken

    def until_done(self, seconds=30):
        """The events up to and with the next `done`."""
        return self.until(lambda event: event[0] == "done", seconds)

    def close(self):
        self.connection.close()


class Instance:
    """One `parley serve` of the site: its process and port."""

    def __init__(self, process, port, folder):
        self.process, self.port, self.folder = process, port, folder

    def api(self, method, path, token, body=None):
        """A JSON API call with a Bearer token; returns the reply."""
        return CookieClient(self.port).request(method, path, body=body, headers={"Authorization": f"Bearer {token}"})

    def events(self, token, conversation_id, last_event_id=None):
        """The conversation's event stream on this instance, with a Bearer token."""
        return EventStream(self.port, token, conversation_id, last_event_id)

    def follow_until_done(self, token, conversation_id, last_event_id, seconds=30):
        """The events up to the reply's `done` as a browser's EventSource gets them: a stream the server ends is opened
        again with the last id received."""
        taken = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            stream = self.events(token, conversation_id, last_event_id)
            while True:
                try:
                    event = stream.events.get(timeout=max(0.01, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if event is None:
                    break
                taken.append(event)
                last_event_id = event[1] or last_event_id
                if event[0] == "done":
                    stream.close()
                    return taken
            stream.close()
        raise AssertionError(f"no done within {seconds} s; read {taken}")

    def new_conversation(self, token, model="mock-slow"):
        """A new conversation's id."""
        reply = self.api("POST", "/api/conversations", token, {"model": model})
        assert reply.status == 201, reply.text
        return reply.json()["id"]

    def send(self, token, conversation_id, content="hello"):
        """Sends a message through the API; returns the reply."""
        return self.api("POST", f"/api/conversations/{conversation_id}/messages", token, {"content": content})

    def messages(self, token, conversation_id):
        """The conversation's messages."""
        reply = self.api("GET", f"/api/conversations/{conversation_id}/messages", token)
        assert reply.status == 200, reply.text
        return reply.json()["data"]


class Site:
    """Instances sharing one PostgreSQL database, started on demand, stopped at the end."""

    def __init__(self, database_url, mock_port):
        self.database_url, self.mock_port = database_url, mock_port
        self.instances = []

    def start(self, **environment):
        """Starts one more instance; returns it once it answers."""
        folder = tempfile.mkdtemp(prefix="parley-instance-")
        config = os.path.join(folder, "models.json")
        with open(config, "w") as file:
            json.dump({
                "providers": [{"id": "mock", "kind": "openai", "base_url": f"http://127.0.0.1:{self.mock_port}/v1",
                               "api_key_env": "MOCK_API_KEY"}],
                "models": [{"id": "mock-slow", "provider": "mock", "price": {"input": 10, "output": 20}},
                           {"id": "mock-fast", "provider": "mock", "price": {"input": 10, "output": 20}}],
            }, file)
        port = free_port()
        env = dict(os.environ, PARLEY_DATABASE_URL=self.database_url, PARLEY_BCRYPT_COST="4",
                   PARLEY_LOG_LEVEL="warning", PARLEY_SHUTDOWN_GRACE="0", PARLEY_SIGNUP="open",
                   PARLEY_CONFIG=config, MOCK_API_KEY="test-key", PARLEY_SEND_RATE="0", PARLEY_SIGNUP_RATE="0")
        env.update(environment)
        for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
            env.pop(name, None)
        process = subprocess.Popen([PARLEY, "serve", "--port", str(port), "--data-dir", folder], cwd=ROOT, env=env,
                                   stdout=subprocess.DEVNULL)
        wait_for(lambda: process.poll() is not None or healthy(port), what="parley serve")
        assert process.poll() is None, "parley serve exited at start"
        instance = Instance(process, port, folder)
        self.instances.append(instance)
        return instance

    def sign_up(self, instance):
        """A new account made on `instance`; returns its email and a session token."""
        email = f"user-{uuid.uuid4().hex[:12]}@example.com"
        reply = CookieClient(instance.port).post_form("/signup", {"email": email, "password": PASSWORD})
        assert reply.status == 303, f"sign-up answered {reply.status}"
        login = CookieClient(instance.port).request("POST", "/api/login", body={"email": email, "password": PASSWORD})
        assert login.status == 200, login.status
        return email, login.json()["token"]

    def reply_on_a_followed_on_b(self):
        """Two instances, A and B, and a user's reply running on A whose stream on B has had its first token; returns
        A, B, the user's token, the conversation and B's stream."""
        a, b = self.start(), self.start()
        _, token = self.sign_up(a)
        conversation = a.new_conversation(token)
        on_b = b.events(token, conversation)
        assert a.send(token, conversation).status == 202
        on_b.until(lambda event: event[0] == "token")
        return a, b, token, conversation, on_b

    def stop_all(self):
        for instance in self.instances:
            stop(instance.process)
            shutil.rmtree(instance.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def mock_upstream():
    """A `parley-dev mock-upstream` whose replies are 40 tokens (`mock-slow`: 100 ms each); yields its port."""
    with running_mock(PARLEY_DEV, tokens=40) as port:
        yield port


@pytest.fixture()
def site(mock_upstream):
    """A new database and the means to start instances on it; the instances stop after the test."""
    running = Site(throwaway_postgres.new_database_url(), mock_upstream)
    try:
        yield running
    finally:
        running.stop_all()


@pytest.fixture()
def provider():
    """A real OpenID Connect provider; yields its issuer address."""
    with openid_provider() as issuer:
        yield issuer


NGINX = "/usr/sbin/nginx"
DEPLOYED_CONFIG = os.path.join(ROOT, "deploy", "nginx.conf")


class Nginx:
    """Debian's nginx running deploy/nginx.conf, the configuration the README gives, with its instances' and its own
    addresses replaced by loopback ones; in the foreground as the current user, its files in `folder`."""

    def __init__(self, folder, instance_ports):
        self.port = free_port()
        deployed = open(DEPLOYED_CONFIG).read()
        servers = "".join(f"    server 127.0.0.1:{port} max_fails=1 fail_timeout=5s;\n" for port in instance_ports)
        lines = [line for line in deployed.splitlines(keepends=True) if not line.strip().startswith("server parley-")]
        site = "".join(lines).replace("upstream parley {\n", "upstream parley {\n" + servers)
        site = site.replace("listen 80;", f"listen 127.0.0.1:{self.port};")
        assert servers in site and f"127.0.0.1:{self.port}" in site, "deploy/nginx.conf changed shape"
        with open(os.path.join(folder, "site.conf"), "w") as file:
            file.write(site)
        for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            os.makedirs(os.path.join(folder, name), exist_ok=True)
        with open(os.path.join(folder, "nginx.conf"), "w") as file:
            file.write(f"""daemon off;
master_process off;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/site.conf;
}}
""")
        self.process = subprocess.Popen([NGINX, "-p", folder, "-c", os.path.join(folder, "nginx.conf")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: self.process.poll() is not None or healthy(self.port), what="nginx")
        assert self.process.poll() is None, open(os.path.join(folder, "error.log")).read()

    def stop(self):
        stop(self.process)


@pytest.fixture()
def nginx_folder():
    """A folder for nginx's files, removed afterwards."""
    folder = tempfile.mkdtemp(prefix="parley-nginx-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
