"""Fixtures for the browser suite: a real `parley serve` (demo model) on a loopback port and headless Chromium.

A failing test leaves a screenshot of every browser it used in $PARLEY_ARTIFACTS (default: a temp folder) and
prints the path.
"""
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
PARLEY_DEV = os.path.join(ROOT, ".build", "debug", "parley-dev")
ARTIFACTS = os.environ.get("PARLEY_ARTIFACTS") or os.path.join(tempfile.gettempdir(), "parley-browser-artifacts")


def parley_environment():
    """The server's environment: fast hashing, a visible token pace for the demo model (a reply takes about two
    seconds), no shutdown grace, no real provider."""
    env = dict(os.environ, PARLEY_BCRYPT_COST="4", PARLEY_DEMO_TOKEN_DELAY_MS="20", PARLEY_LOG_LEVEL="warning",
               PARLEY_SHUTDOWN_GRACE="0")
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "PARLEY_CONFIG"):
        env.pop(name, None)
    return env


class Server:
    """A running `parley serve` with its own data folder; with `tls`, serving HTTPS with a self-signed certificate
    that openssl makes there; `extra_environment` adds to (or overrides) its environment; `port` 0 lets it choose."""

    def __init__(self, data, tls=False, extra_environment=None, port=0):
        self.data = data
        env = dict(parley_environment(), **(extra_environment or {}))
        if tls:
            certificate, key = os.path.join(data, "cert.pem"), os.path.join(data, "key.pem")
            subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                            "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                            "-keyout", key, "-out", certificate], check=True, capture_output=True, timeout=30)
            env.update(PARLEY_TLS_CERTIFICATE=certificate, PARLEY_TLS_KEY=key)
        self.process = subprocess.Popen([PARLEY, "serve", "--port", str(port), "--data-dir", data], cwd=ROOT,
                                        env=env, stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"(https?)://127\.0\.0\.1:(\d+)", line)
        assert match, f"parley serve did not start: {line!r}"
        self.url = f"{match.group(1)}://127.0.0.1:{match.group(2)}"

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=15)


def parley(*arguments, data, stdin="", executable=PARLEY):
    """Runs a `parley` command (or `parley-dev`'s) against a data folder and returns its output."""
    result = subprocess.run([executable, *arguments, "--data-dir", data], cwd=ROOT, env=parley_environment(),
                            input=stdin, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture()
def data_dir():
    """A fresh data folder, removed afterwards."""
    data = tempfile.mkdtemp(prefix="parley-browser-")
    yield data
    shutil.rmtree(data, ignore_errors=True)


@pytest.fixture()
def running_server(data_dir):
    """Starts Parley with a fresh data folder; yields the Server (a test may stop it early)."""
    running = Server(data_dir)
    yield running
    running.stop()


@pytest.fixture()
def server(running_server):
    """The base URL of a fresh Parley."""
    return running_server.url


def start_chromium(javascript=True, width=1200, height=900, trust_any_certificate=False):
    """A headless Chromium with a fresh profile, driven over WebDriver with Debian's chromedriver (no downloads); with
    `trust_any_certificate`, it accepts a test server's self-signed one."""
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={width},{height}"):
        options.add_argument(argument)
    if trust_any_certificate:
        options.add_argument("--ignore-certificate-errors")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    driver.implicitly_wait(0)
    return driver


def reset(driver):
    """Brings a used browser back to a new one's state. Each test's server listens on its own port, so it is a new
    origin (storage, service worker, permissions); only cookies, which ignore the port, and the window remain."""
    for handle in driver.window_handles[1:]:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(driver.window_handles[0])
    driver.get("about:blank")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                           {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.set_window_size(1200, 900)
    driver.get_log("browser")


@pytest.fixture(scope="session")
def reusable_chromium():
    """One browser that the tests take turns with (starting Chromium costs about two seconds)."""
    holder = {}
    yield holder
    if "driver" in holder:
        holder["driver"].quit()


class Browsers:
    """Hands out browsers: the reusable one (reset) first, then fresh profiles; screenshots them all on failure."""

    def __init__(self, reusable):
        self.reusable = reusable
        self.drivers = []
        self.fresh = []

    def new(self, javascript=True, trust_any_certificate=False):
        driver = None
        if javascript and not trust_any_certificate and not self.drivers:
            driver = self.reusable.get("driver")
            try:
                if driver is not None:
                    reset(driver)
            except Exception:  # the browser died with an earlier test: start another
                driver = None
            if driver is None:
                driver = self.reusable["driver"] = start_chromium()
        else:
            driver = start_chromium(javascript=javascript, trust_any_certificate=trust_any_certificate)
            self.fresh.append(driver)
        self.drivers.append(driver)
        return driver

    def screenshot(self, name):
        os.makedirs(ARTIFACTS, exist_ok=True)
        paths = []
        for index, driver in enumerate(self.drivers):
            path = os.path.join(ARTIFACTS, f"{name}-{index}.png")
            try:
                if driver.get_screenshot_as_file(path):
                    paths.append(path)
            except Exception as error:  # a browser that already crashed has no screenshot to give
                print(f"no screenshot of browser {index}: {error}")
        return paths

    def quit(self):
        for driver in self.fresh:
            driver.quit()


@pytest.fixture()
def browsers(request, reusable_chromium):
    """A source of browsers for one test, all screenshotted when the test fails."""
    made = Browsers(reusable_chromium)
    yield made
    report = getattr(request.node, "call_report", None)
    if report is not None and report.failed:
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
        for path in made.screenshot(name):
            print(f"\nscreenshot: {path}")
    made.quit()


@pytest.fixture()
def browser(browsers):
    """A headless Chromium for the test."""
    return browsers.new()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keeps the test's own outcome on the item, so that the fixtures can screenshot a failure."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.call_report = report
