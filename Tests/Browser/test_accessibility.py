"""axe-core on every kind of page Parley serves: signed out, a user's pages with a long markdown reply (task lists,
a table, code, links), the admin's pages with usage data, a share seen by a stranger, an error page, and a phone-sized
screen. Each page must have no serious or critical violation; the minor and moderate ones are printed."""
import json
import os

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PARLEY_DEV, Server, parley
from parley_pages import PASSWORD, assert_accessible, sign_in, sign_up, start_conversation, wait_for_reply

# A reply as a real model writes one, with task lists whose items hold quotes, markup characters, links, code and a
# nested list, so that each checkbox's accessible name is seen to come out whole and escaped: (item, its name).
TASKS = [('- [x] Read the "getting started" guide', 'Read the "getting started" guide'),
         ("- [ ] Compare a < b & c > d", "Compare a < b & c > d"),
         ("- [ ] Try `swift build` first", "Try swift build first"),
         ("- [x] Open [the docs](https://example.com/docs)", "Open the docs")]
LABELS = [label for _, label in TASKS]
LONG_REPLY = "\n".join([
    "# A plan", "",
    "Here is what to do, step by step.", "",
    *[item for item, _ in TASKS],
    "  - [ ] A nested step under the last one", "",
    "## Details", "",
    "| Step | Time |", "| --- | ---: |", "| Read | 10 min |", "| Build | 2 min |", "",
    "```swift", 'let greeting = "Hello"', "print(greeting)", "```", "",
    "> A quoted **tip**, with a [link](https://example.com).", "",
    "1. [x] A numbered task", "2. [ ] Another one", "",
    *[f"- [ ] Chore number {index} of a long list" for index in range(1, 26)],
])


def chatgpt_export(question, reply):
    """A one-conversation `conversations.json` as ChatGPT exports it, which Parley imports."""
    def node(role, text, parent):
        return {"message": {"author": {"role": role}, "content": {"content_type": "text", "parts": [text]}},
                "parent": parent}
    return [{"title": "A long markdown reply", "current_node": "reply",
             "mapping": {"question": node("user", question, None), "reply": node("assistant", reply, "question")}}]


def import_conversation(browser, server, tmp_path):
    """Imports a conversation holding LONG_REPLY through Settings → Import and opens it."""
    path = os.path.join(tmp_path, "conversations.json")
    with open(path, "w", encoding="utf-8") as file:
        json.dump(chatgpt_export("Make me a plan", LONG_REPLY), file)
    browser.get(server + "/settings")
    browser.find_element(By.CSS_SELECTOR, '#import-form input[type="file"]').send_keys(path)
    browser.find_element(By.CSS_SELECTOR, "#import-form button[type=submit]").click()
    WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, ".notice[role=status]"))
    browser.get(server + "/c")
    browser.find_element(By.LINK_TEXT, "A long markdown reply").click()
    return wait_for_reply(browser)


def check(browser, label, path=None, server=None):
    """Opens `path` (or takes the page shown), waits until it has loaded, and runs axe-core on it."""
    if path is not None:
        browser.get(server + path)
    WebDriverWait(browser, 10).until(lambda b: b.execute_script("return document.readyState") == "complete")
    assert_accessible(browser, label)


def test_signed_out_pages_and_an_error_page(browser, server):
    check(browser, "sign-in", "/login", server)
    check(browser, "sign-up", "/signup", server)
    browser.get(server + "/login")
    browser.find_element(By.NAME, "email").send_keys("nobody@example.com")
    browser.find_element(By.NAME, "password").send_keys("not the password")
    browser.find_element(By.CSS_SELECTOR, "main button[type=submit]").click()
    WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, ".error[role=alert]"))
    check(browser, "sign-in with an error")
    sign_up(browser, server)
    browser.get(server + "/c/999999")
    assert "404" in browser.find_element(By.TAG_NAME, "h1").text  # the error page, not a redirect
    check(browser, "an error page")


def test_a_users_pages_with_a_long_markdown_reply_and_its_share(browsers, server, tmp_path):
    browser = browsers.new()
    sign_up(browser, server)
    check(browser, "an empty conversation list")
    reply = import_conversation(browser, server, tmp_path)
    # Every task-list checkbox is named after its item, in the HTML the server rendered.
    boxes = reply.find_elements(By.CSS_SELECTOR, "li > input[type=checkbox]")
    assert len(boxes) == len(TASKS) + 1 + 2 + 25
    assert [box.get_attribute("aria-label") for box in boxes[:len(TASKS) + 1]] == [*LABELS, "A nested step under the last one"]
    check(browser, "a conversation with a long markdown reply")
    imported = browser.current_url

    browser.get(server + "/c")
    start_conversation(browser, "Hello there")
    wait_for_reply(browser)
    check(browser, "a conversation with the demo model's reply")
    for label, path in (("the conversation list", "/c"), ("the archived list", "/c?archived=1"),
                        ("settings", "/settings"), ("account settings", "/settings/account"),
                        ("search results", "/search?q=plan"),
                        ("search without results", "/search?q=nothingmatches"), ("search", "/search")):
        check(browser, label, path, server)

    browser.get(imported)
    browser.find_element(By.CSS_SELECTOR, "details.share summary").click()
    check(browser, "the share form")
    browser.find_element(By.CSS_SELECTOR, "details.share button.primary[type=submit]").click()
    link = WebDriverWait(browser, 10).until(lambda b: b.find_element(By.CSS_SELECTOR, "a.share-url")).get_attribute("href")
    check(browser, "the shares list")

    stranger = browsers.new()  # a fresh profile, signed out
    stranger.get(link)
    boxes = stranger.find_elements(By.CSS_SELECTOR, "main.shared li > input[type=checkbox]")
    assert [box.get_attribute("aria-label") for box in boxes[:len(LABELS)]] == LABELS
    check(stranger, "a shared conversation")


def test_the_admins_pages_with_usage_data(browser, data_dir):
    parley("usage-fixture", "--users", "3", "--days", "14", "--messages", "60", data=data_dir, executable=PARLEY_DEV)
    parley("user", "create", "--email", "admin@example.com", "--admin", data=data_dir, stdin=PASSWORD + "\n")
    running = Server(data_dir)
    try:
        sign_in(browser, running.url, email="admin@example.com")
        for label, path in (("the admin dashboard", "/admin"), ("the admin's user list", "/admin/users"),
                            ("a user's admin page", "/admin/users/1"), ("the admin's model list", "/admin/models")):
            check(browser, label, path, running.url)
    finally:
        running.stop()


def test_pages_on_a_phone_sized_screen(browsers, server, tmp_path):
    browser = browsers.new()
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 2,
                                                                    "mobile": True})
    check(browser, "sign-in on a phone", "/login", server)
    sign_up(browser, server)
    import_conversation(browser, server, tmp_path)
    assert browser.execute_script("return window.innerWidth") <= 400
    check(browser, "a conversation on a phone")
    browser.find_element(By.CSS_SELECTOR, "#sidebar-list summary").click()  # the folded conversation list, opened
    check(browser, "a conversation with its list open on a phone")
    for label, path in (("the conversation list on a phone", "/c"), ("settings on a phone", "/settings"),
                        ("the admin dashboard on a phone", "/admin")):
        check(browser, label, path, server)
