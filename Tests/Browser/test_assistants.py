"""Assistants in a real browser: an author makes one with the form (instructions, a starter) and shares it with
everyone; a second person finds it on the assistants page, starts a conversation with it, sees its starter, and
sending the starter writes a reply. Once with JavaScript and once without."""
import pytest
from selenium.webdriver.common.by import By

from conftest import Server
from parley_pages import assert_accessible, console_problems, last_reply_status, sign_up, until, wait_for_reply


@pytest.fixture()
def open_server(data_dir):
    """Parley where anyone may sign up."""
    running = Server(data_dir, extra_environment={"PARLEY_SIGNUP": "open"})
    yield running.url
    running.stop()


@pytest.mark.parametrize("javascript", [True, False], ids=["with-script", "without-script"])
def test_a_shared_assistant_starts_a_conversation_with_its_starters(browsers, open_server, javascript):
    server = open_server
    author = browsers.new(javascript=javascript)
    sign_up(author, server, email="author@example.com")
    author.get(server + "/assistants")
    author.find_element(By.LINK_TEXT, "New assistant").click()
    until(author, lambda b: b.find_element(By.NAME, "name"))
    author.find_element(By.NAME, "name").send_keys("Support writer")
    author.find_element(By.NAME, "icon").send_keys("💬")
    author.find_element(By.NAME, "instructions").send_keys("Answer customers kindly.")
    author.find_elements(By.NAME, "starter[]")[0].send_keys("Where is my order?")
    author.find_element(By.CSS_SELECTOR, "input[name=visibility][value=everyone]").click()
    assert_accessible(author, "the assistant form", javascript=javascript)
    author.find_element(By.XPATH, "//button[text()='Create assistant']").click()
    until(author, lambda b: b.current_url == server + "/assistants" and "Support writer" in b.page_source)

    reader = browsers.new(javascript=javascript)
    sign_up(reader, server, email="reader@example.com")
    reader.find_element(By.LINK_TEXT, "Assistants").click()
    until(reader, lambda b: "shared with you" in b.find_element(By.CSS_SELECTOR, "li.assistant").text)
    assert not reader.find_elements(By.LINK_TEXT, "Edit"), "a shared assistant is not the reader's to edit"
    assert_accessible(reader, "the assistants page", javascript=javascript)
    reader.find_element(By.CSS_SELECTOR, "button[aria-label='Start a conversation with Support writer']").click()
    until(reader, lambda b: b.find_elements(By.CSS_SELECTOR, "button.starter"))
    assert reader.find_element(By.CSS_SELECTOR, ".chat-header .tag.assistant").text == "Support writer"
    assert_accessible(reader, "a conversation started with an assistant", javascript=javascript)
    reader.find_element(By.CSS_SELECTOR, "button.starter").click()
    if javascript:
        wait_for_reply(reader)
    else:
        # Without script the page does not follow the stream: it shows the reply once reloaded after it ended.
        until(reader, lambda b: b.refresh() or last_reply_status(b) == "complete", seconds=20)
    assert "Where is my order?" in reader.find_element(By.ID, "messages").text
    assert not reader.find_elements(By.CSS_SELECTOR, "button.starter"), "starters leave once the conversation began"
    if javascript:
        assert console_problems(reader) == []
