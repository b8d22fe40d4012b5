"""Tool calls in a real browser: a reply of `mock-tools` calls a tool of a real MCP server (Tests/MCP/tool_server.py,
the official Python SDK, over stdio), whose row appears collapsed above the answer, opens on its arguments and
result, and stays after a reload; a tool that asks first waits with Allow and Deny, and Allow resumes the reply;
without JavaScript, the reloaded page offers the same buttons and Deny tells the model the call was not allowed."""
import json
import os

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import Select

from conftest import ROOT
from mock_upstream import parley_with_mock_upstream
from parley_pages import assert_accessible, console_problems, replies, sign_up, start_conversation, until

CONFIG = {
    "models": [{"id": "tools-openai", "provider": "openai", "upstream_id": "mock-tools", "tools": True}],
    "mcp_servers": [{"id": "t", "name": "Test tools", "transport": "stdio",
                     "command": [os.path.join(ROOT, ".venv-test", "bin", "python"),
                                 os.path.join(ROOT, "Tests", "MCP", "tool_server.py"), "stdio"],
                     "tools": {"lookup": {"confirm": True}}}],
}


@pytest.fixture()
def tool_server(data_dir):
    """Parley with the mock upstream's `mock-tools` as `tools-openai` and the test MCP server `t`."""
    path = os.path.join(data_dir, "tools.json")
    with open(path, "w", encoding="utf-8") as file:
        json.dump(CONFIG, file)
    with parley_with_mock_upstream(data_dir, environment={"PARLEY_CONFIG": path}) as url:
        yield url


def start_with_tools(browser, server, question):
    """Signs up (the first account: an admin), waits on Admin → Tools until the MCP server is connected, and starts
    a conversation of `tools-openai` with `question`."""
    sign_up(browser, server)
    browser.get(server + "/admin/tools")
    until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, '.server-state[data-connected="true"]')
          or b.refresh(), seconds=30)
    browser.get(server + "/c")
    Select(browser.find_element(By.CSS_SELECTOR, "#new-conversation select[name=model]")).select_by_value(
        "tools-openai")
    start_conversation(browser, question)


def last_reply(browser):
    """The last reply's article, or None."""
    found = replies(browser)
    return found[-1] if found else None


def tool_row(browser, status=None, seconds=30):
    """The last reply's (first) tool row once it is there, with `data-status` `status` when given."""
    selector = "details.tool-call" + (f'[data-status="{status}"]' if status else "")
    return until(browser, lambda b: last_reply(b) and last_reply(b).find_element(By.CSS_SELECTOR, selector),
                 seconds=seconds)


def block_text(browser, block):
    """The text of a row's `pre` block itself, without the Wrap and Copy buttons the page's script adds to it."""
    return browser.execute_script(
        "return [...arguments[0].childNodes].filter((node) => node.nodeType === Node.TEXT_NODE)"
        ".map((node) => node.textContent).join('')", block)


def reply_text_when_complete(browser, reload=False, seconds=60):
    """The last reply's text once it is complete; with `reload`, reloading the page until then (no script)."""
    def complete(b):
        reply = last_reply(b)
        if reply is not None and reply.get_attribute("data-status") == "complete":
            return reply.find_element(By.CSS_SELECTOR, ".content").text
        if reload:
            b.refresh()
        return None
    return until(browser, complete, seconds=seconds)


def test_a_tool_row_appears_collapsed_opens_on_its_call_and_stays(browser, tool_server):
    """On an open conversation, the call's row (drawn from the stream) names the tool and is collapsed; opened, it
    shows the arguments and the result; the reply answers from the result; after a reload the row is there, collapsed
    and done."""
    start_with_tools(browser, tool_server, "call none")
    reply_text_when_complete(browser)
    composer = browser.find_element(By.CSS_SELECTOR, "#composer textarea")
    composer.send_keys('call t__add {"a": 2, "b": 3}')
    browser.find_element(By.CSS_SELECTOR, "#composer button[type=submit]").click()
    until(browser, lambda b: len(replies(b)) == 2)
    row = tool_row(browser)
    assert row.find_element(By.CSS_SELECTOR, ".tool-name").text == "t__add"
    assert row.get_attribute("open") is None
    assert reply_text_when_complete(browser) == "The tool said: 5"
    row = tool_row(browser, status="ok")
    assert row.find_element(By.CSS_SELECTOR, ".tool-status").text == "done"
    row.find_element(By.TAG_NAME, "summary").click()
    assert row.get_attribute("open") is not None
    assert json.loads(block_text(browser, row.find_element(By.CSS_SELECTOR, ".tool-arguments"))) == {"a": 2, "b": 3}
    assert [block_text(browser, result) for result in row.find_elements(By.CSS_SELECTOR, ".tool-result")] == ["5"]
    assert_accessible(browser, "a reply with an open tool call")
    assert not console_problems(browser)

    browser.refresh()
    assert reply_text_when_complete(browser) == "The tool said: 5"
    rows = last_reply(browser).find_elements(By.CSS_SELECTOR, "details.tool-call")
    assert len(rows) == 1
    assert rows[0].get_attribute("open") is None and rows[0].get_attribute("data-status") == "ok"
    assert rows[0].find_element(By.CSS_SELECTOR, ".tool-name").text == "t__add"
    assert rows[0].find_element(By.CSS_SELECTOR, ".tool-status").text == "done"
    assert not rows[0].find_element(By.CSS_SELECTOR, ".tool-result").is_displayed()  # collapsed


def test_allow_resumes_a_reply_that_asks_first(browser, tool_server):
    """A tool that asks first waits with Allow and Deny; Allow runs it, the reply answers from its result, and the
    row says done."""
    start_with_tools(browser, tool_server, 'call t__lookup {"key": "ada"}')
    row = tool_row(browser, status="awaiting")
    assert row.find_element(By.CSS_SELECTOR, ".tool-name").text == "t__lookup"
    assert row.find_element(By.CSS_SELECTOR, ".tool-status").text == "waiting for your answer"
    buttons = row.find_elements(By.CSS_SELECTOR, ".tool-decision button")
    assert [(button.text, button.get_attribute("value")) for button in buttons] == [
        ("Allow", "allow"), ("Deny", "deny")]
    assert all(button.is_displayed() for button in buttons)
    assert_accessible(browser, "a tool call waiting for permission")
    allow = buttons[0]
    allow.click()
    # The answer is a form's post: the page comes back on the running reply, which then ends.
    until(browser, ready.staleness_of(allow))
    assert "Ada Lovelace" in reply_text_when_complete(browser)
    assert not console_problems(browser)
    # The page drawn while the call ran shows how it ended once the reply has (the stream says so, however late the
    # page joined it); a reload shows the same, collapsed.
    for reloaded in (False, True):
        if reloaded:
            browser.refresh()
            assert "Ada Lovelace" in reply_text_when_complete(browser)
        row = tool_row(browser, status="ok")
        assert row.find_element(By.CSS_SELECTOR, ".tool-status").text == "done"
        assert not row.find_elements(By.CSS_SELECTOR, ".tool-decision")
        assert len(row.find_elements(By.CSS_SELECTOR, ".tool-result")) == 1
    assert row.get_attribute("open") is None


def test_deny_without_javascript(browsers, tool_server):
    """Without script, the page reloaded until the call waits offers Allow and Deny; Deny makes the reply say the
    call was not allowed, and the row says denied."""
    browser = browsers.new(javascript=False)
    start_with_tools(browser, tool_server, 'call t__lookup {"key": "ada"}')
    row = until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, 'details.tool-call[data-status="awaiting"]')
                or b.refresh(), seconds=30)[0]
    assert row.find_element(By.CSS_SELECTOR, ".tool-status").text == "waiting for your answer"
    assert row.get_attribute("open") is not None  # the buttons are in view
    assert [button.text for button in row.find_elements(By.CSS_SELECTOR, ".tool-decision button")] == ["Allow", "Deny"]
    assert_accessible(browser, "a tool call waiting for permission, without JavaScript", javascript=False)
    deny = row.find_element(By.CSS_SELECTOR, 'button[value="deny"]')
    deny.click()
    # Only once the post has gone may the page be reloaded (a reload would cancel it).
    until(browser, ready.staleness_of(deny))
    assert "did not allow" in reply_text_when_complete(browser, reload=True)
    row = tool_row(browser)
    assert row.get_attribute("data-status") == "denied"
    assert row.find_element(By.CSS_SELECTOR, ".tool-status").text == "denied"
    assert_accessible(browser, "a denied tool call, without JavaScript", javascript=False)
