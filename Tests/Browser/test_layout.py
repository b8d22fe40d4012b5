"""The conversation page as an app: the header on top, the conversation list and the messages each scrolling in
their own column, the reply controls and the composer at the bottom, and nothing wider than the screen, at 1280×900
and on a 390 px phone, with and without script."""
import json
import time
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from parley_pages import EMAIL, PASSWORD, assert_accessible, replies, sign_in, sign_up, wait_for_reply

DESKTOP = (1280, 900)
PHONE = (390, 844)
LONG_WORD = "org-name/" + "an-unbroken-model-like-identifier-" * 8 + "q4_K_M.gguf"

# Whether an element lies wholly inside the viewport.
INSIDE_VIEWPORT = """
const box = arguments[0].getBoundingClientRect();
return box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight + 0.5 && box.right <= window.innerWidth + 0.5;
"""
# Whether the bottom edge of an element is in view: below the top of the viewport, above the composer (or the reply
# controls over it) and the bottom of the viewport.
BOTTOM_IN_VIEW = """
const box = arguments[0].getBoundingClientRect();
const dock = document.querySelector(".reply-controls").getBoundingClientRect();
return box.bottom > 0 && box.bottom <= Math.min(dock.top, window.innerHeight) + 1;
"""


def set_viewport(browser, size):
    """Emulates a screen of `size` (width, height): a phone's when it is narrow."""
    width, height = size
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 2 if width < 720 else 1, "mobile": width < 720})


def call(server, path, body, token=None):
    """POSTs JSON to Parley's API and returns the decoded answer."""
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    request = urllib.request.Request(server + path, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"{}")


def api_token(server):
    return call(server, "/api/login", {"email": EMAIL, "password": PASSWORD})["token"]


def import_conversation(server, token, title, turns):
    """Imports one conversation in Parley's export format: `turns` are (question, reply) pairs. Returns its id."""
    stamp = "2025-01-01T00:00:00Z"
    messages = []
    for question, reply in turns:
        for role, content in (("user", question), ("assistant", reply)):
            messages.append({"id": len(messages) + 1, "role": role, "content": content, "status": "complete",
                             "model": "parley-demo", "created_at": stamp, "attachments": [],
                             "usage": {"prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0, "estimated": False}})
    document = {"format": "parley-export", "version": 1, "exported_at": stamp, "conversations": [{
        "conversation": {"id": 1, "title": title, "model": "parley-demo", "system_prompt": "", "created_at": stamp,
                         "updated_at": stamp, "pinned": False, "archived": False},
        "messages": messages}]}
    return call(server, "/settings/import", document, token)["conversation_ids"][0]


def many_conversations(server, token, count=60):
    """Fills the conversation list: some titles very long, one a single unbroken word."""
    for index in range(count):
        title = f"Conversation {index}"
        if index % 7 == 0:
            title = f"A very long title about the many things we talked about, number {index}, " * 3
        if index == 5:
            title = LONG_WORD
        call(server, "/api/conversations", {"title": title[:200]}, token)


def open_conversation(browser, server, conversation_id):
    browser.get(f"{server}/c/{conversation_id}")
    WebDriverWait(browser, 10).until(lambda b: b.execute_script("return document.readyState") == "complete")


def page_width_fits(browser, size):
    """Nothing sticks out sideways (a phone would zoom out to show it, widening innerWidth: so that is checked too)."""
    return browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"
                                  " && window.innerWidth <= arguments[0]", size[0])


def inside_viewport(browser, element):
    return browser.execute_script(INSIDE_VIEWPORT, element)


def last_message(browser):
    return browser.find_elements(By.CSS_SELECTOR, "#messages article.message")[-1]


def test_a_short_conversation_with_a_long_list_shows_its_last_message_and_the_composer(browsers, server):
    browser = browsers.new()
    sign_up(browser, server)
    token = api_token(server)
    many_conversations(server, token)
    short = import_conversation(server, token, LONG_WORD, [("A short question?", "A short answer.")])
    for size in (DESKTOP, PHONE):
        set_viewport(browser, size)
        open_conversation(browser, server, short)
        assert inside_viewport(browser, last_message(browser)), size
        assert inside_viewport(browser, browser.find_element(By.ID, "composer")), size
        assert page_width_fits(browser, size), size
        if size == DESKTOP:
            # The page itself does not scroll: the list scrolls in its own column.
            assert browser.execute_script("return document.documentElement.scrollHeight <= window.innerHeight")
            sidebar = browser.find_element(By.CSS_SELECTOR, "nav.sidebar")
            assert browser.execute_script("return arguments[0].scrollHeight > arguments[0].clientHeight", sidebar)
            assert inside_viewport(browser, sidebar)
            assert inside_viewport(browser, browser.find_element(By.CSS_SELECTOR, "main#chat h1"))
        assert_accessible(browser, f"a short conversation at {size[0]}×{size[1]} with a long list")
        # A model id as long as a file path (the demo has none: named so in the page) narrows the model list.
        browser.execute_script("document.querySelector('#composer select option').textContent = arguments[0]", LONG_WORD)
        assert page_width_fits(browser, size), size
        assert inside_viewport(browser, browser.find_element(By.ID, "send")), size
    # A conversation opened from far down the list is shown there.
    set_viewport(browser, DESKTOP)
    browser.get(browser.find_elements(By.CSS_SELECTOR, ".sidebar li a")[45].get_attribute("href"))
    assert inside_viewport(browser, browser.find_element(By.CSS_SELECTOR, ".sidebar li[aria-current]"))


WIDE_REPLY = "\n".join([
    "Here is a wide table and a long line of code.", "",
    "| " + " | ".join(f"Column heading {index}" for index in range(12)) + " |",
    "| " + " | ".join("---" for _ in range(12)) + " |",
    "| " + " | ".join(f"cell{index}-without-any-break-in-it" for index in range(12)) + " |", "",
    "```python", "value = compute(" + ", ".join(f"argument_number_{index}" for index in range(30)) + ")", "```", "",
    "And a word: " + LONG_WORD,
])


@pytest.mark.parametrize("javascript", [True, False], ids=["script", "no-script"])
def test_on_a_phone_a_wide_reply_scrolls_inside_itself_and_the_composer_stays_on_screen(browsers, server,
                                                                                         javascript):
    browser = browsers.new()
    sign_up(browser, server)
    conversation = import_conversation(server, api_token(server), "Wide things", [("Show me wide things", WIDE_REPLY)])
    if not javascript:
        browser = browsers.new(javascript=False)
        sign_in(browser, server)
    set_viewport(browser, PHONE)
    open_conversation(browser, server, conversation)
    assert browser.find_element(By.CSS_SELECTOR, "#messages table")
    assert page_width_fits(browser, PHONE)
    attach = ".attach-button" if javascript else "label.attach input[type=file]"
    for control in ("#send", attach):
        assert inside_viewport(browser, browser.find_element(By.CSS_SELECTOR, control)), control
    for wide in ("#messages table", "#messages pre"):
        element = browser.find_element(By.CSS_SELECTOR, wide)
        assert browser.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth", element), wide
    assert_accessible(browser, "a wide reply on a phone", javascript=javascript)


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_reply_streaming_after_a_long_history_stays_in_view(browsers, server, size):
    browser = browsers.new()
    sign_up(browser, server)
    turns = [(f"Question {index}: what about part {index}?",
              f"Answer {index}.\n\nA paragraph long enough to take a few lines on the screen, about part {index}. " * 2)
             for index in range(20)]
    token = api_token(server)
    many_conversations(server, token)
    conversation = import_conversation(server, token, "A long history", turns)
    set_viewport(browser, size)
    open_conversation(browser, server, conversation)
    assert inside_viewport(browser, last_message(browser))  # it opens on the latest message
    count = len(replies(browser))
    browser.find_element(By.ID, "content").send_keys("One more, please", Keys.ENTER)
    WebDriverWait(browser, 10).until(lambda b: len(replies(b)) == count + 1)
    seen = 0
    deadline = time.time() + 20
    while time.time() < deadline:
        reply = replies(browser)[-1]
        if reply.get_attribute("data-status") != "streaming":
            break
        if reply.text:
            assert browser.execute_script(BOTTOM_IN_VIEW, reply), f"the streaming reply went out of view at {size}"
            if size == DESKTOP:  # the messages column follows it, not the page
                assert browser.execute_script("return document.documentElement.scrollHeight <= window.innerHeight")
            seen += 1
        time.sleep(0.1)
    assert seen >= 3  # it was checked while it grew
    reply = wait_for_reply(browser)
    assert browser.execute_script(BOTTOM_IN_VIEW, reply)
    assert page_width_fits(browser, size)
    assert_accessible(browser, f"a long conversation after a streamed reply at {size[0]}×{size[1]}")


def test_scrolling_the_messages_up_stops_following_and_jump_to_latest_returns(browsers, server):
    browser = browsers.new()
    sign_up(browser, server)
    turns = [(f"Question {index}", f"Answer {index}, in a few words.") for index in range(15)]
    conversation = import_conversation(server, api_token(server), "Scroll up", turns)
    set_viewport(browser, DESKTOP)
    open_conversation(browser, server, conversation)
    messages = browser.find_element(By.ID, "messages")
    browser.find_element(By.ID, "content").send_keys("a long answer please", Keys.ENTER)
    WebDriverWait(browser, 10).until(lambda b: replies(b)[-1].get_attribute("data-status") == "streaming")
    browser.execute_script("arguments[0].scrollTop = 0", messages)
    jump = browser.find_element(By.CSS_SELECTOR, "button.jump-latest")
    WebDriverWait(browser, 10).until(lambda b: jump.is_displayed())
    assert browser.execute_script("return arguments[0].scrollTop", messages) == 0  # the column did not follow
    assert inside_viewport(browser, jump)
    jump.click()
    WebDriverWait(browser, 5).until(lambda b: b.execute_script(
        "const m = arguments[0]; return m.scrollTop + m.clientHeight >= m.scrollHeight - 80", messages))
    assert not jump.is_displayed()
    wait_for_reply(browser)
    assert browser.execute_script(BOTTOM_IN_VIEW, replies(browser)[-1])
    assert_accessible(browser, "a conversation after jumping to the latest")


def test_without_script_the_page_holds_still_and_the_composer_shows(browsers, server):
    signed_up = browsers.new()
    sign_up(signed_up, server)
    token = api_token(server)
    many_conversations(server, token, count=30)
    turns = [(f"Question {index}", f"Answer {index}, in a few words.") for index in range(15)]
    conversation = import_conversation(server, token, "Without script", turns)
    browser = browsers.new(javascript=False)
    sign_in(browser, server)
    set_viewport(browser, DESKTOP)
    open_conversation(browser, server, conversation)
    assert browser.execute_script("return document.documentElement.scrollHeight <= window.innerHeight")
    assert inside_viewport(browser, browser.find_element(By.ID, "composer"))
    assert inside_viewport(browser, browser.find_element(By.ID, "send"))
    messages = browser.find_element(By.ID, "messages")
    # Without script nothing scrolls the column: it starts at the first message, and scrolls by hand.
    assert browser.execute_script("return arguments[0].scrollHeight > arguments[0].clientHeight", messages)
    browser.execute_script("arguments[0].scrollTop = arguments[0].scrollHeight", messages)
    assert inside_viewport(browser, last_message(browser))
    assert page_width_fits(browser, DESKTOP)
    assert_accessible(browser, "a long conversation without script", javascript=False)
