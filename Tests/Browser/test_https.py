"""Parley serving HTTPS itself: the browser speaks HTTP/2, so a person's many tabs share one connection."""
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import Server
from parley_pages import assert_accessible, sign_up, start_conversation, streaming_states, wait_for_reply

TABS = 8  # over HTTP/1.1 a browser opens at most 6 connections to a server, and each open tab's event stream holds one


@pytest.fixture()
def tls_server(data_dir):
    """The base URL of a fresh Parley serving HTTPS."""
    running = Server(data_dir, tls=True)
    yield running.url
    running.stop()


def test_eight_tabs_with_open_streams_and_a_reply_streams_in_the_last(browsers, tls_server):
    browser = browsers.new(trust_any_certificate=True)
    assert tls_server.startswith("https://")
    browser.set_page_load_timeout(15)  # over HTTP/1.1 the seventh tab would wait for a connection until this ends
    sign_up(browser, tls_server)
    start_conversation(browser, "Hello there")
    wait_for_reply(browser)
    page = browser.current_url
    for _ in range(TABS - 1):
        browser.switch_to.new_window("tab")
        browser.get(page)
        WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "chat"))
    # Every tab's event stream is open at once.
    for handle in browser.window_handles:
        browser.switch_to.window(handle)
        WebDriverWait(browser, 10).until(lambda b: b.execute_script("return document.readyState") == "complete")
    assert len(browser.window_handles) == TABS
    box = browser.find_element(By.ID, "content")
    box.send_keys("And again")
    browser.find_element(By.ID, "send").click()
    WebDriverWait(browser, 10).until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "article.message.assistant")) == 2)
    assert len(streaming_states(browser)) >= 2  # it streamed in place, over the shared connection
    wait_for_reply(browser)
    # The first tab, whose stream stayed open all along, shows the second reply too.
    browser.switch_to.window(browser.window_handles[0])
    WebDriverWait(browser, 20).until(
        lambda b: [a.get_attribute("data-status") for a in b.find_elements(By.CSS_SELECTOR, "article.message.assistant")]
        == ["complete", "complete"])
    assert_accessible(browser, "a conversation over HTTPS")
