"""A reasoning model's thinking in a real browser: a collapsed "Thinking…" section that counts the seconds while the
reasoning streams, closes saying how long it took once the answer starts, opens on click, and is there after a
reload, saying the same time; a share link shows it only when its owner includes it. The model is the mock upstream's
`mock-think` (reasoning, then the answer), reached as an OpenAI-compatible server on loopback."""
import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from mock_upstream import parley_with_mock_upstream
from parley_pages import assert_accessible, sign_up, wait_for_reply

REASONING_START = "Let me think step by step:"


@pytest.fixture()
def thinking_server(data_dir):
    """Parley talking to a mock upstream whose tokens come 150 ms apart, so the reasoning streams for seconds."""
    with parley_with_mock_upstream(data_dir, "--delay-ms", "150", "--tokens", "8") as url:
        yield url


def test_thinking_streams_collapsed_then_closes_with_its_time_and_reopens(browser, thinking_server):
    sign_up(browser, thinking_server)
    Select(browser.find_element(By.CSS_SELECTOR, "#new-conversation select[name=model]")).select_by_value("mock-think")
    browser.find_element(By.CSS_SELECTOR, "#new-conversation textarea").send_keys("think first")
    browser.find_element(By.CSS_SELECTOR, "#new-conversation button[type=submit]").click()
    section = WebDriverWait(browser, 15).until(
        lambda b: b.find_element(By.CSS_SELECTOR, "article.message.assistant details.reasoning"))
    summary = section.find_element(By.TAG_NAME, "summary")
    # While the reasoning streams: collapsed, counting seconds, the text growing inside.
    assert re.fullmatch(r"Thinking… \d+ s", summary.text), summary.text
    assert section.get_attribute("open") is None
    WebDriverWait(browser, 10).until(lambda b: re.fullmatch(r"Thinking… [1-9]\d* s", summary.text))
    hidden_text = section.find_element(By.CSS_SELECTOR, ".reasoning-text").get_attribute("textContent")
    assert hidden_text.startswith(REASONING_START)
    summary.click()  # the reader may watch it think
    assert section.get_attribute("open") is not None
    reply = wait_for_reply(browser)
    # Once the answer started, the section closed and says how long the thinking took (by now the server's figure).
    assert re.fullmatch(r"Thought for \d+ s", summary.text), summary.text
    live_summary = summary.text
    assert section.get_attribute("open") is None
    assert REASONING_START not in reply.find_element(By.CSS_SELECTOR, ".content").text
    summary.click()
    text = section.find_element(By.CSS_SELECTOR, ".reasoning-text")
    assert text.is_displayed() and text.text.startswith(REASONING_START) and "2 <" in text.text
    assert_accessible(browser, "a reply with its reasoning open")
    # After a reload the stored reasoning is there, collapsed, saying the time the live page said.
    browser.refresh()
    stored = wait_for_reply(browser).find_element(By.CSS_SELECTOR, "details.reasoning")
    assert stored.get_attribute("open") is None
    assert stored.find_element(By.TAG_NAME, "summary").text == live_summary
    assert stored.find_element(By.CSS_SELECTOR, ".reasoning-text").get_attribute("textContent").startswith(
        REASONING_START)


def share_link(browser, include_reasoning):
    """Shares the open conversation through its Share form, ticking "Include the model's reasoning" if asked."""
    browser.find_element(By.CSS_SELECTOR, "details.share summary").click()
    box = browser.find_element(By.CSS_SELECTOR, "details.share input[name=include_reasoning]")
    assert not box.is_selected()  # off unless chosen
    if include_reasoning:
        box.click()
    browser.find_element(By.CSS_SELECTOR, "details.share button.primary[type=submit]").click()
    return WebDriverWait(browser, 10).until(lambda b: b.find_element(By.CSS_SELECTOR, "a.share-url")).get_attribute("href")


def test_a_share_shows_the_reasoning_only_when_its_owner_includes_it(browsers, thinking_server):
    owner = browsers.new()
    sign_up(owner, thinking_server)
    Select(owner.find_element(By.CSS_SELECTOR, "#new-conversation select[name=model]")).select_by_value("mock-think")
    owner.find_element(By.CSS_SELECTOR, "#new-conversation textarea").send_keys("think, then share")
    owner.find_element(By.CSS_SELECTOR, "#new-conversation button[type=submit]").click()
    wait_for_reply(owner, seconds=30)
    conversation = owner.current_url
    thought = owner.find_element(By.CSS_SELECTOR, "details.reasoning summary").get_attribute("textContent")
    assert re.fullmatch(r"Thought for \d+ s", thought), thought
    with_reasoning = share_link(owner, include_reasoning=True)
    owner.get(conversation)
    without = share_link(owner, include_reasoning=False)

    visitor = browsers.new(javascript=False)  # the shared page needs no script
    visitor.get(with_reasoning)
    section = visitor.find_element(By.CSS_SELECTOR, "main.shared article.message.assistant details.reasoning")
    assert section.get_attribute("open") is None
    assert section.find_element(By.TAG_NAME, "summary").text == thought
    assert section.find_element(By.CSS_SELECTOR, ".reasoning-text").get_attribute("textContent").startswith(
        REASONING_START)
    section.find_element(By.TAG_NAME, "summary").click()
    assert section.find_element(By.CSS_SELECTOR, ".reasoning-text").is_displayed()
    assert_accessible(visitor, "a share with the reasoning open", javascript=False)
    visitor.get(without)
    assert visitor.find_element(By.CSS_SELECTOR, "main.shared article.message.assistant")
    assert not visitor.find_elements(By.CSS_SELECTOR, "details.reasoning")
    assert REASONING_START not in visitor.page_source
