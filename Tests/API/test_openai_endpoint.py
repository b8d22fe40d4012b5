"""Parley's OpenAI-compatible endpoint driven by the official `openai` Python package, against a real `parley serve`
whose provider is a real `parley-dev mock-upstream` (both on loopback, started and stopped here).

The configured models: `chat` (the mock's `mock-fast`, priced, seeing images), `slow` (`mock-slow`, 100 ms a token),
`limited` (opened to one group alone, which the test's user is not in), `flaky` (`mock-500`, failing every try), and
`gpt-4o-mini` (`mock-fast`), which the README's examples name.
"""
import base64
import http.client
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import openai
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "PythonSupport"))
from parley_http import free_port, stop  # noqa: E402

from conftest import PARLEY, PARLEY_DEV, PASSWORD, ROOT, wait_for  # noqa: E402

MOCK_TOKENS = 30


def call(port, method, path, body=None, token=None, timeout=10):
    """One JSON request to 127.0.0.1:`port`; returns the status, headers and parsed (or raw) body."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = connection.getresponse()
        raw = response.read().decode()
    finally:
        connection.close()
    try:
        return response.status, response.headers, json.loads(raw)
    except ValueError:
        return response.status, response.headers, raw


class Stack:
    """The mock upstream and Parley, each in its own process, with an admin and a user who has an API key."""

    def __init__(self):
        self.mock = self.parley = None
        try:
            self.start()
        except BaseException:
            self.stop()  # a start that fails halfway leaves no process behind
            raise

    def start(self):
        self.folder = tempfile.mkdtemp(prefix="parley-openai-")
        self.mock_port = free_port()
        self.mock = subprocess.Popen(
            [PARLEY_DEV, "mock-upstream", "--port", str(self.mock_port), "--tokens", str(MOCK_TOKENS)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: self.mock_stats() is not None, what="the mock upstream")
        base = f"http://127.0.0.1:{self.mock_port}/v1"
        config = {
            "providers": [{"id": "mock", "kind": "openai", "base_url": base, "api_key_env": "MOCK_API_KEY"}],
            "models": [
                {"id": "chat", "provider": "mock", "upstream_id": "mock-fast", "vision": True,
                 "price": {"input": 1000000, "output": 1000000}},
                {"id": "slow", "provider": "mock", "upstream_id": "mock-slow"},
                {"id": "limited", "provider": "mock", "upstream_id": "mock-fast"},
                {"id": "flaky", "provider": "mock", "upstream_id": "mock-500"},
                {"id": "gpt-4o-mini", "provider": "mock", "upstream_id": "mock-fast"},
            ],
        }
        config_path = os.path.join(self.folder, "models.json")
        with open(config_path, "w") as file:
            json.dump(config, file)
        environment = dict(os.environ, PARLEY_BCRYPT_COST="4", PARLEY_LOG_LEVEL="warning", PARLEY_SHUTDOWN_GRACE="0",
                           PARLEY_SIGNUP="open", PARLEY_CONFIG=config_path, MOCK_API_KEY="test-key",
                           )
        for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "PARLEY_TRUSTED_PROXIES"):
            environment.pop(name, None)
        self.environment = environment
        self.create_user("admin@example.com", "--admin")
        self.port = free_port()
        self.parley = subprocess.Popen([PARLEY, "serve", "--port", str(self.port), "--data-dir", self.folder],
                                       cwd=ROOT, env=environment, stdout=subprocess.DEVNULL)
        wait_for(lambda: self.answers(), what="parley serve")
        self.url = f"http://127.0.0.1:{self.port}"
        self.admin = self.sign_in("admin@example.com", create=False)
        self.user = self.sign_in("user@example.com")
        self.key = self.make_key(self.user)

    def answers(self):
        try:
            return call(self.port, "GET", "/healthz")[0] == 200
        except OSError:
            return False

    def mock_stats(self):
        try:
            return call(self.mock_port, "GET", "/stats")[2]
        except OSError:
            return None

    def create_user(self, email, *flags):
        """Makes an account on the command line, as an admin would."""
        subprocess.run([PARLEY, "user", "create", "--email", email, *flags, "--data-dir", self.folder],
                       input=PASSWORD + "\n", env=self.environment, check=True, capture_output=True, text=True,
                       timeout=60)

    def sign_in(self, email, create=True):
        """A session token for `email` (making the account first unless told not to)."""
        if create:
            self.create_user(email)
        status, _, body = call(self.port, "POST", "/api/login", {"email": email, "password": PASSWORD})
        assert status == 200, body
        return body["token"]

    def make_key(self, token, name="script"):
        status, _, body = call(self.port, "POST", "/api/keys", {"name": name}, token=token)
        assert status == 201, body
        return body["key"]

    def client(self, key=None, **options):
        return openai.OpenAI(base_url=self.url + "/v1", api_key=key or self.key, max_retries=0, **options)

    def stop(self):
        for process in (self.parley, self.mock):
            if process is not None:
                stop(process)
        if hasattr(self, "folder"):
            shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="module")
def stack():
    running = Stack()
    try:
        yield running
    finally:
        running.stop()


def test_models_lists_what_the_user_may_use(stack):
    # Before the group restricts `limited`, the user sees every model.
    ids = [model.id for model in stack.client().models.list()]
    assert ids[:5] == ["chat", "slow", "limited", "flaky", "gpt-4o-mini"], ids
    one = stack.client().models.retrieve("gpt-4o-mini")
    assert one.id == "gpt-4o-mini" and one.owned_by == "mock"
    with pytest.raises(openai.NotFoundError):
        stack.client().models.retrieve("nope")


def test_a_completion_whole_and_streamed(stack):
    client = stack.client()
    whole = client.chat.completions.create(model="chat", messages=[{"role": "user", "content": "Hello"}])
    assert whole.object == "chat.completion" and whole.model == "chat"
    assert whole.choices[0].finish_reason == "stop"
    text = whole.choices[0].message.content
    assert text.startswith("Hello! This is a **mock** reply") and len(text) > 50
    assert whole.usage.completion_tokens == MOCK_TOKENS and whole.usage.prompt_tokens >= 1
    assert whole.usage.total_tokens == whole.usage.prompt_tokens + whole.usage.completion_tokens

    chunks = list(client.chat.completions.create(
        model="chat", messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello"}],
        stream=True, stream_options={"include_usage": True}, temperature=0.2, top_p=0.9, max_tokens=500))
    assert chunks[0].choices[0].delta.role == "assistant"
    streamed = "".join(chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices)
    assert streamed == text
    assert [chunk.choices[0].finish_reason for chunk in chunks if chunk.choices][-1] == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == MOCK_TOKENS
    assert len({chunk.id for chunk in chunks}) == 1

    sent = stack.mock_stats()["last_request"]
    assert sent["model"] == "mock-fast" and sent["temperature"] == 0.2 and sent["top_p"] == 0.9
    assert sent["max_tokens"] == 500
    assert sent["messages"][0] == {"role": "system", "content": "Be brief."}


def test_the_calls_are_counted_as_api_use_and_held_in_no_conversation(stack):
    token = stack.sign_in("counted@example.com")
    key = stack.make_key(token)
    stack.client(key).chat.completions.create(model="chat", messages=[{"role": "user", "content": "Hello"}])
    status, _, conversations = call(stack.port, "GET", "/api/conversations", token=token)
    assert status == 200 and conversations["data"] == []
    status, _, csv = call(stack.port, "GET", "/admin/usage.csv", token=stack.admin)
    assert status == 200, csv
    header, *rows = [line.split(",") for line in csv.strip().splitlines()]
    mine = [dict(zip(header, row)) for row in rows if "counted@example.com" in row]
    assert len(mine) == 1, rows
    assert mine[0]["model"] == "chat" and mine[0]["source"] == "api" and mine[0]["messages"] == "1"
    assert float(mine[0]["cost_usd"]) > 0


def test_an_image_part(stack):
    png = tiny_png()
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    answer = stack.client().chat.completions.create(model="chat", messages=[{"role": "user", "content": [
        {"type": "text", "text": "What is this?"}, {"type": "image_url", "image_url": {"url": url}}]}])
    assert answer.choices[0].message.content
    sent = stack.mock_stats()["last_request"]
    parts = sent["messages"][-1]["content"]
    assert parts[0] == {"type": "text", "text": "What is this?"}
    assert parts[1]["image_url"]["url"].startswith("data:image/")

    with pytest.raises(openai.BadRequestError) as refused:
        stack.client().chat.completions.create(model="chat", messages=[{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "http://127.0.0.1:1/cat.png"}}]}])
    assert "data URL" in refused.value.message


def test_a_stop_sequence(stack):
    answer = stack.client().chat.completions.create(
        model="chat", messages=[{"role": "user", "content": "Hello"}], stop=["brown"])
    text = answer.choices[0].message.content
    assert text.endswith("The quick ") and "brown" not in text, text
    assert answer.choices[0].finish_reason == "stop"
    cut = stack.client().chat.completions.create(
        model="chat", messages=[{"role": "user", "content": "Hello"}], max_tokens=3)
    assert cut.choices[0].finish_reason == "length" and cut.usage.completion_tokens == 3


def test_a_bad_key(stack):
    with pytest.raises(openai.AuthenticationError) as refused:
        stack.client("pk-" + "A" * 43).chat.completions.create(
            model="chat", messages=[{"role": "user", "content": "Hello"}])
    assert refused.value.status_code == 401 and refused.value.code == "invalid_api_key"
    with pytest.raises(openai.AuthenticationError):
        stack.client("not-a-parley-key").models.list()


def test_an_unknown_model_and_a_bad_request(stack):
    with pytest.raises(openai.NotFoundError) as missing:
        stack.client().chat.completions.create(model="nope", messages=[{"role": "user", "content": "Hello"}])
    assert missing.value.code == "model_not_found"
    with pytest.raises(openai.BadRequestError):
        stack.client().chat.completions.create(model="chat", messages=[])
    with pytest.raises(openai.BadRequestError):
        stack.client().chat.completions.create(
            model="chat", messages=[{"role": "user", "content": "Hello"}], temperature=7)


def test_an_upstream_failure_keeps_its_status(stack):
    with pytest.raises(openai.InternalServerError) as failed:
        stack.client().chat.completions.create(
            model="flaky", messages=[{"role": "user", "content": "Hello"}], stream=True)
    assert failed.value.status_code == 502 and failed.value.code == "provider_overloaded"


def test_a_model_not_allowed(stack):
    status, headers, _ = call(stack.port, "POST", "/admin/groups", {"name": "insiders"}, token=stack.admin)
    assert status == 303, status
    group = headers["Location"]
    status, _, _ = call(stack.port, "POST", group + "/models", {"models": ["limited"]}, token=stack.admin)
    assert status == 303
    with pytest.raises(openai.PermissionDeniedError) as refused:
        stack.client().chat.completions.create(model="limited", messages=[{"role": "user", "content": "Hello"}])
    assert refused.value.status_code == 403 and refused.value.code == "model_not_allowed"
    assert "limited" not in [model.id for model in stack.client().models.list()]
    with pytest.raises(openai.NotFoundError):
        stack.client().models.retrieve("limited")


def test_a_spent_budget(stack):
    token = stack.sign_in("frugal@example.com")
    key = stack.make_key(token)
    me = call(stack.port, "GET", "/api/me", token=token)[2]
    status, _, _ = call(stack.port, "POST", f"/admin/users/{me['id']}/budget", {"budget": "0.01"}, token=stack.admin)
    assert status == 303
    client = stack.client(key)
    # The model costs a dollar a token: one completion spends the budget, and the next is refused.
    client.chat.completions.create(model="chat", messages=[{"role": "user", "content": "Hello"}])
    with pytest.raises(openai.APIStatusError) as refused:
        client.chat.completions.create(model="chat", messages=[{"role": "user", "content": "Hello"}])
    assert refused.value.status_code == 402 and refused.value.code == "budget_exceeded"


def test_a_client_that_leaves_mid_stream_closes_the_upstream_request(stack):
    before = stack.mock_stats()["aborted"]
    stream = stack.client().chat.completions.create(
        model="slow", messages=[{"role": "user", "content": "Hello"}], stream=True)
    received = 0
    for chunk in stream:
        received += len(chunk.choices[0].delta.content or "") if chunk.choices else 0
        if received > 10:
            break
    stream.close()
    # The mock notices the closed connection when it next writes, a token (100 ms) later.
    wait_for(lambda: stack.mock_stats()["aborted"] > before, what="the mock to see its request aborted")


def test_a_client_that_gives_up_on_a_whole_completion_closes_the_upstream_request(stack):
    before = stack.mock_stats()["aborted"]
    # `slow` takes 3 s for its 30 tokens; the client waits half a second.
    with pytest.raises(openai.APITimeoutError):
        stack.client(timeout=0.5).chat.completions.create(model="slow", messages=[{"role": "user", "content": "Hi"}])
    wait_for(lambda: stack.mock_stats()["aborted"] > before, what="the mock to see its request aborted")


def readme_examples(kind):
    """The README's `kind` code blocks (sh, python) of its JSON API section that talk to a server."""
    with open(os.path.join(ROOT, "README.md")) as file:
        readme = file.read()
    section = readme[readme.index("## The JSON API"):]
    section = section[:section.index("\n## ", 1)]
    return [block for block in re.findall(rf"```{kind}\n(.*?)```", section, re.S) if "127.0.0.1:8080" in block]


def test_the_readme_examples_run_as_written(stack):
    shells = readme_examples("sh")
    assert len(shells) == 3, shells
    outputs = []
    for block in shells:
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", block.replace("http://127.0.0.1:8080", stack.url)],
                              env=dict(os.environ, PARLEY_KEY=stack.key), capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    models, whole, streamed = outputs
    assert "gpt-4o-mini" in [model["id"] for model in json.loads(models)["data"]]
    assert json.loads(whole)["choices"][0]["message"]["content"].startswith("Hello! This is a **mock** reply")
    assert streamed.rstrip().endswith("data: [DONE]") and '"usage":{"prompt_tokens"' in streamed
    (python,) = readme_examples("python")
    script = python.replace("http://127.0.0.1:8080", stack.url).replace('"pk-…"', repr(stack.key))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Hello! This is a **mock** reply")


def tiny_png():
    """A valid 1×1 PNG."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
            + chunk(b"IEND", b""))
