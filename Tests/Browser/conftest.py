"""Fixtures for the browser suite: a real `parley serve` (demo model) on a loopback port and headless Chromium."""
import os
import re
import shutil
import subprocess
import tempfile

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PARLEY = os.path.join(ROOT, ".build", "debug", "parley")


@pytest.fixture()
def server():
    """Starts Parley with a fresh data folder; yields its base URL."""
    data = tempfile.mkdtemp(prefix="parley-browser-")
    env = dict(os.environ, PARLEY_BCRYPT_COST="4", PARLEY_DEMO_TOKEN_DELAY_MS="40", PARLEY_LOG_LEVEL="warning")
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        env.pop(name, None)
    process = subprocess.Popen([PARLEY, "serve", "--port", "0", "--data-dir", data], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    assert match, f"parley serve did not start: {line!r}"
    yield f"http://127.0.0.1:{match.group(1)}"
    process.terminate()
    process.wait(timeout=15)
    shutil.rmtree(data, ignore_errors=True)


@pytest.fixture()
def browser():
    """A headless Chromium driven over WebDriver, using Debian's chromedriver (no downloads)."""
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    driver.implicitly_wait(0)
    yield driver
    driver.quit()
