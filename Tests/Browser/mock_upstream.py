"""The mock upstream (`parley-dev mock-upstream`) on a loopback port, and a Parley that talks to it as its
OpenAI-compatible provider: its `mock-…` models are then offered in the model lists."""
import contextlib
import re
import subprocess

from conftest import PARLEY_DEV, ROOT, Server


@contextlib.contextmanager
def parley_with_mock_upstream(data_dir, *mock_flags, environment=None):
    """Yields the URL of a Parley whose provider is a mock upstream started with `mock_flags` (and whose environment
    `environment` adds to, say a PARLEY_CONFIG); stops both after."""
    # stdbuf: the mock prints its address to a pipe, which would otherwise hold it in its buffer.
    mock = subprocess.Popen(["stdbuf", "-oL", PARLEY_DEV, "mock-upstream", "--port", "0", *mock_flags],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        match = re.search(r"http://127\.0\.0\.1:(\d+)", mock.stdout.readline())
        assert match, "the mock upstream did not start"
        server = Server(data_dir, extra_environment={
            "OPENAI_BASE_URL": f"http://127.0.0.1:{match.group(1)}/v1", "OPENAI_API_KEY": "test-key",
            **(environment or {})})
        try:
            yield server.url
        finally:
            server.stop()
    finally:
        mock.terminate()
        mock.wait(timeout=15)
