"""The chat page in a real browser: sign up, stream a reply, stop another, and reload mid-stream."""
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait


def sign_up(browser, server):
    browser.get(server + "/signup")
    browser.find_element(By.NAME, "email").send_keys("me@example.com")
    browser.find_element(By.NAME, "password").send_keys("correct horse battery")
    browser.find_element(By.CSS_SELECTOR, "main button[type=submit]").click()
    WebDriverWait(browser, 10).until(ready.url_to_be(server + "/c"))


def start_conversation(browser, text):
    browser.find_element(By.CSS_SELECTOR, "#new-conversation textarea").send_keys(text)
    browser.find_element(By.CSS_SELECTOR, "#new-conversation button[type=submit]").click()
    WebDriverWait(browser, 10).until(ready.presence_of_element_located((By.ID, "chat")))


def replies(browser):
    return browser.find_elements(By.CSS_SELECTOR, "article.message.assistant")


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


def test_reply_streams_as_formatted_html_and_completes(browser, server):
    sign_up(browser, server)
    assert "demo model" in browser.find_element(By.CSS_SELECTOR, ".banner").text
    start_conversation(browser, "Hello there")
    WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "stop-form").is_displayed())
    states = streaming_states(browser)
    assert len(states) >= 3, states  # the reply grows in place while it streams
    assert len(states[-1]) > len(states[0])
    WebDriverWait(browser, 20).until(lambda b: replies(b)[-1].get_attribute("data-status") == "complete")
    reply = replies(browser)[-1]
    assert not reply.find_elements(By.CSS_SELECTOR, ".pending")  # the final render replaced any raw text
    assert reply.find_element(By.CSS_SELECTOR, "table")  # markdown rendered on the server, not raw pipes
    code = reply.find_element(By.CSS_SELECTOR, "pre[data-lang=swift] code")
    assert "Hello from Parley" in code.text
    assert reply.find_element(By.CSS_SELECTOR, "pre button.copy").get_attribute("aria-label") == "Copy code (swift)"
    assert "|---" not in reply.text and "**" not in reply.text
    assert not browser.find_element(By.ID, "stop-form").is_displayed()
    assert browser.find_element(By.ID, "send").is_enabled()


def test_enter_sends_and_escape_stops(browser, server):
    sign_up(browser, server)
    start_conversation(browser, "first")
    WebDriverWait(browser, 20).until(lambda b: replies(b)[-1].get_attribute("data-status") == "complete")
    box = browser.find_element(By.ID, "content")
    box.send_keys("second question")
    box.send_keys(Keys.ENTER)
    WebDriverWait(browser, 10).until(lambda b: len(replies(b)) == 2 and b.find_element(By.ID, "stop-form").is_displayed())
    assert browser.find_element(By.ID, "content").get_attribute("value") == ""
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    WebDriverWait(browser, 10).until(lambda b: replies(b)[-1].get_attribute("data-status") == "stopped")
    texts = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "article.message")]
    assert texts[2].startswith("second question")  # the question stays above its answer
    assert not browser.find_element(By.ID, "stop-form").is_displayed()


def test_reload_mid_stream_resumes_the_reply(browser, server):
    sign_up(browser, server)
    start_conversation(browser, "tell me something long")
    WebDriverWait(browser, 10).until(lambda b: replies(b) and len(replies(b)[-1].text) > 20)
    browser.refresh()
    WebDriverWait(browser, 20).until(lambda b: replies(b)[-1].get_attribute("data-status") == "complete")
    reply = replies(browser)[-1].text
    assert reply.startswith("This is Parley's demo model")
    assert "Set one of the keys above" in reply


def test_scrolling_up_stops_following_and_jump_to_latest_returns(browser, server):
    browser.set_window_size(900, 420)
    sign_up(browser, server)
    start_conversation(browser, "a long answer please")
    WebDriverWait(browser, 10).until(lambda b: replies(b) and len(replies(b)[-1].text) > 40)
    browser.execute_script("window.scrollTo(0, 0)")
    jump = browser.find_element(By.CSS_SELECTOR, "button.jump-latest")
    WebDriverWait(browser, 10).until(lambda b: jump.is_displayed())
    assert browser.execute_script("return window.scrollY") == 0  # the view did not follow the reply
    jump.click()
    WebDriverWait(browser, 5).until(lambda b: b.execute_script(
        "return window.innerHeight + window.scrollY >= document.body.scrollHeight - 80"))
    assert not jump.is_displayed()
