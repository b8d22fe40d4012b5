"""What a person does on Parley's pages, as steps the browser tests share. Every wait is bounded."""
import time

try:
    from axe_selenium_python import Axe
except ImportError as error:  # run by a Python without the suite's PyPI packages
    raise ImportError("axe-selenium-python is missing: run ./scripts/install-deps.sh --test, then the suite with "
                      ".venv-test/bin/python") from error
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

EMAIL = "me@example.com"
PASSWORD = "correct horse battery"


def until(browser, condition, seconds=10):
    """Waits for `condition`, looking again while a page is replaced under it (a form's redirect)."""
    return WebDriverWait(browser, seconds, ignored_exceptions=(WebDriverException,)).until(condition)


def fill_account_form(browser, email, password):
    browser.find_element(By.NAME, "email").send_keys(email)
    browser.find_element(By.NAME, "password").send_keys(password)
    browser.find_element(By.CSS_SELECTOR, "main button[type=submit]").click()


def sign_up(browser, server, email=EMAIL, password=PASSWORD):
    browser.get(server + "/signup")
    fill_account_form(browser, email, password)
    WebDriverWait(browser, 10).until(ready.url_to_be(server + "/c"))


def sign_in(browser, server, email=EMAIL, password=PASSWORD):
    browser.get(server + "/login")
    fill_account_form(browser, email, password)
    WebDriverWait(browser, 10).until(ready.url_to_be(server + "/c"))


def sign_out(browser, server):
    browser.find_element(By.CSS_SELECTOR, 'form[action="/logout"] button').click()
    WebDriverWait(browser, 10).until(lambda b: b.current_url.startswith(server + "/login"))


def start_conversation(browser, text):
    browser.find_element(By.CSS_SELECTOR, "#new-conversation textarea").send_keys(text)
    browser.find_element(By.CSS_SELECTOR, "#new-conversation button[type=submit]").click()
    WebDriverWait(browser, 10).until(ready.presence_of_element_located((By.ID, "chat")))


def replies(browser):
    return browser.find_elements(By.CSS_SELECTOR, "article.message.assistant")


def last_reply_status(browser):
    last = replies(browser)[-1:]
    return last[0].get_attribute("data-status") if last else None


def wait_for_reply(browser, status="complete", seconds=20):
    WebDriverWait(browser, seconds).until(lambda b: last_reply_status(b) == status)
    return replies(browser)[-1]


def streaming_states(browser, seconds=20):
    """The distinct texts the last reply shows while it streams, until it completes."""
    states = []
    deadline = time.time() + seconds
    while time.time() < deadline:
        last = replies(browser)[-1:]
        status = last[0].get_attribute("data-status") if last else None
        if status == "complete":
            break
        text = last[0].find_element(By.CSS_SELECTOR, ".content").text if last else ""
        if status == "streaming" and text and (not states or states[-1] != text):
            states.append(text)
        time.sleep(0.05)
    return states


def console_problems(browser):
    """JavaScript errors and Content-Security-Policy reports in the console since the last call."""
    return [entry["message"] for entry in browser.get_log("browser")
            if entry["level"] == "SEVERE" or "Content Security Policy" in entry["message"]]


# axe-core violations of these impacts fail a test; minor and moderate ones are printed.
FAILING_IMPACTS = ("serious", "critical")
# With script turned off, a page's timers never fire but promises still settle: axe-core's queue waits on timers.
TIMERS_AS_MICROTASKS = """
window.setTimeout = (callback, delay, ...values) => { Promise.resolve().then(() => callback(...values)); return 0; };
window.clearTimeout = () => {};
"""


def describe_violations(violations):
    """One line per element axe-core flags: rule, impact, CSS target and the start of its HTML."""
    return [f"{violation['id']} ({node.get('impact') or violation['impact']}) {' '.join(node['target'])}: "
            f"{node['html'][:200]}" for violation in violations for node in violation["nodes"]]


def assert_accessible(browser, label, javascript=True):
    """Runs axe-core (its default rules) on the page shown: fails on any serious or critical violation, listing each
    element, and prints the minor and moderate ones. `label` names the page in the messages; `javascript=False` is for
    a browser with script turned off."""
    browser.set_script_timeout(30)
    if not javascript:
        browser.execute_script(TIMERS_AS_MICROTASKS)
    axe = Axe(browser)
    axe.inject()
    violations = axe.run()["violations"]
    failing = [violation for violation in violations if violation["impact"] in FAILING_IMPACTS]
    for line in describe_violations([violation for violation in violations if violation not in failing]):
        print(f"axe on {label}: {line}")
    assert not failing, f"axe-core on {label} ({browser.current_url}):\n" + "\n".join(describe_violations(failing))
