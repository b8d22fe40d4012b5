"""The chat page in a real browser: stream a reply, the keyboard, stop, reload mid-stream, two tabs, following."""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from parley_pages import assert_accessible, replies, sign_up, start_conversation, streaming_states, wait_for_reply

FIRST_SENTENCE = "This is Parley's demo model"


def test_reply_streams_as_formatted_html_and_completes(browser, server):
    sign_up(browser, server)
    assert "demo model" in browser.find_element(By.CSS_SELECTOR, ".banner").text
    start_conversation(browser, "Hello there")
    WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "stop-form").is_displayed())
    states = streaming_states(browser)
    assert len(states) >= 3, states  # the reply grows in place while it streams
    assert len(states[-1]) > len(states[0])
    reply = wait_for_reply(browser)
    assert not reply.find_elements(By.CSS_SELECTOR, ".pending")  # the final render replaced any raw text
    assert reply.find_element(By.CSS_SELECTOR, "table")  # markdown rendered on the server, not raw pipes
    code = reply.find_element(By.CSS_SELECTOR, "pre[data-lang=swift] code")
    assert "Hello from Parley" in code.text
    assert reply.find_element(By.CSS_SELECTOR, "pre button.copy").get_attribute("aria-label") == "Copy code (swift)"
    assert reply.find_element(By.CSS_SELECTOR, ".meta button.copy").get_attribute("aria-label") == "Copy the reply"
    assert "|---" not in reply.text and "**" not in reply.text
    assert not browser.find_element(By.ID, "stop-form").is_displayed()
    assert browser.find_element(By.ID, "send").is_enabled()
    # Times are shown in the reader's zone: no longer the server's ISO text, which stays in `datetime`.
    time = reply.find_element(By.CSS_SELECTOR, ".meta time")
    assert "T" in time.get_attribute("datetime") and "T" not in time.text
    assert_accessible(browser, "a conversation with a streamed reply")


def test_keyboard_enter_sends_shift_enter_adds_a_line_escape_stops(browser, server):
    sign_up(browser, server)
    start_conversation(browser, "")
    box = browser.find_element(By.ID, "content")
    height = box.size["height"]
    box.send_keys("second question")
    box.send_keys(Keys.SHIFT, Keys.ENTER)
    box.send_keys("on two lines")
    assert box.get_attribute("value") == "second question\non two lines"  # Shift+Enter did not send
    assert box.size["height"] > height  # the box grew with its content
    assert len(replies(browser)) == 0
    box.send_keys(Keys.ENTER)
    WebDriverWait(browser, 10).until(lambda b: len(replies(b)) == 1 and b.find_element(By.ID, "stop-form").is_displayed()
                                     and b.find_element(By.ID, "content").get_attribute("value") == "")
    assert browser.switch_to.active_element == browser.find_element(By.ID, "content")  # focus came back
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    reply = wait_for_reply(browser, "stopped", seconds=10)
    assert reply.find_element(By.CSS_SELECTOR, ".meta .status").text.lower() == "stopped"
    texts = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "article.message")]
    assert texts[0].startswith("second question\non two lines")  # the question stays above its answer
    assert not browser.find_element(By.ID, "stop-form").is_displayed()
    browser.refresh()  # the server kept it as stopped
    assert wait_for_reply(browser, "stopped", seconds=5).find_element(By.CSS_SELECTOR, ".status").text.lower() == "stopped"
    assert_accessible(browser, "a conversation with a stopped reply")


def test_reload_mid_stream_resumes_the_reply_without_repeating_it(browser, server):
    sign_up(browser, server)
    start_conversation(browser, "tell me something long")
    WebDriverWait(browser, 10).until(lambda b: replies(b) and len(replies(b)[-1].text) > 20)
    browser.refresh()
    states = streaming_states(browser)
    assert states, "the reply did not go on streaming after the reload"
    reply = wait_for_reply(browser).text
    assert reply.startswith(FIRST_SENTENCE) and reply.count(FIRST_SENTENCE) == 1
    first_paragraph = reply.split("\n")[0]
    for state in states:
        # Text that came before its formatted tail shows raw, markdown's asterisks and all, by design.
        shown = state.replace("*", "")
        assert shown.count(FIRST_SENTENCE) <= 1, states  # never repeated
        first_line = shown.split("\n")[0]
        overlap = min(len(first_line), len(first_paragraph))
        assert first_line[:overlap] == first_paragraph[:overlap], states  # nor garbled
    assert reply.count("Set one of the keys above") == 1
    assert_accessible(browser, "a conversation reloaded mid-stream")


def test_two_tabs_on_one_conversation_both_stream(browser, server):
    sign_up(browser, server)
    start_conversation(browser, "")
    first, url = browser.current_window_handle, browser.current_url
    browser.switch_to.new_window("tab")
    browser.get(url)
    second = browser.current_window_handle
    browser.switch_to.window(first)
    box = browser.find_element(By.ID, "content")
    box.send_keys("a question for both tabs", Keys.ENTER)
    browser.switch_to.window(second)
    states = streaming_states(browser)  # the other tab, which sent nothing, shows the reply as it grows
    assert len(states) >= 2, states
    other = wait_for_reply(browser).text
    browser.switch_to.window(first)
    assert wait_for_reply(browser).text == other
    assert len(replies(browser)) == 1
    assert_accessible(browser, "the tab that sent")


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
    assert_accessible(browser, "a short window after jumping to the latest")
