"""What a person does on Parley's pages, as steps the browser tests share. Every wait is bounded."""
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

EMAIL = "me@example.com"
PASSWORD = "correct horse battery"


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
