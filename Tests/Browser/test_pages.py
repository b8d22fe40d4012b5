"""Every page in a real browser: no script errors or CSP reports, every control labelled, nothing axe-core calls
serious; and the page without JavaScript, offline, and on a phone-sized screen."""
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from parley_pages import assert_accessible, console_problems, replies, sign_up, start_conversation, wait_for_reply

UNLABELLED_CONTROLS = """
const named = (element) => {
  const labels = element.labels ? [...element.labels].map((label) => label.textContent).join(" ") : "";
  const labelledBy = (element.getAttribute("aria-labelledby") || "").split(" ").filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent ?? "").join(" ");
  const own = ["BUTTON", "A", "SUMMARY"].includes(element.tagName) ? element.textContent : "";
  return [element.getAttribute("aria-label"), labels, labelledBy, element.getAttribute("title"), own]
    .some((text) => text && text.trim());
};
return [...document.querySelectorAll("button, input:not([type=hidden]), select, textarea, summary, a[href]")]
  .filter((element) => !named(element)).map((element) => element.outerHTML.slice(0, 160));
"""


def check_page(browser, path=None, server=None):
    """Opens `path` (or checks the page shown) and asserts a clean console, labelled controls and axe-core's
    approval."""
    if path is not None:
        browser.get(server + path)
    WebDriverWait(browser, 10).until(lambda b: b.execute_script("return document.readyState") == "complete")
    assert browser.find_element(By.TAG_NAME, "main")
    assert console_problems(browser) == [], browser.current_url
    assert browser.execute_script(UNLABELLED_CONTROLS) == [], browser.current_url
    assert_accessible(browser, path or browser.current_url)


def test_no_script_errors_no_csp_reports_and_labelled_controls_on_every_page(browser, server):
    check_page(browser, "/login", server)
    check_page(browser, "/signup", server)
    sign_up(browser, server)
    check_page(browser)
    start_conversation(browser, "hello")
    WebDriverWait(browser, 10).until(lambda b: replies(b) and b.find_element(By.ID, "stop-form").is_displayed())
    check_page(browser)  # while the reply streams
    wait_for_reply(browser)
    assert_accessible(browser, "a conversation with a complete reply")
    conversation = browser.current_url
    assert console_problems(browser) == []
    browser.find_element(By.CSS_SELECTOR, "details.share summary").click()
    browser.find_element(By.CSS_SELECTOR, "details.share button.primary[type=submit]").click()
    link = WebDriverWait(browser, 10).until(lambda b: b.find_element(By.CSS_SELECTOR, "a.share-url")).get_attribute("href")
    check_page(browser)  # /shares
    for path in ("/search?q=hello", "/settings", "/settings/account", "/c?archived=1", "/admin", "/admin/users",
                 "/admin/users/1", "/admin/models"):
        check_page(browser, path, server)
    browser.get(link)
    check_page(browser)
    browser.get(conversation)
    check_page(browser)


def test_without_javascript_sign_up_send_and_read(browsers, server):
    browser = browsers.new(javascript=False)
    browser.get(server + "/signup")
    assert_accessible(browser, "sign-up without JavaScript", javascript=False)
    sign_up(browser, server)
    start_conversation(browser, "no script here")
    assert not browser.find_elements(By.CSS_SELECTOR, "button.jump-latest")  # the script really is off
    reply = reload_until_complete(browser)
    assert reply.find_element(By.CSS_SELECTOR, "table") and "This is Parley's demo model" in reply.text
    browser.find_element(By.ID, "content").send_keys("and a second question")
    browser.find_element(By.ID, "send").click()
    WebDriverWait(browser, 10).until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "article.message.user")) == 2)
    reply = reload_until_complete(browser)
    assert len(replies(browser)) == 2 and "You wrote 4 words" in reply.text
    assert_accessible(browser, "a conversation without JavaScript", javascript=False)


def reload_until_complete(browser, seconds=15):
    """Without script the page shows a reply as it was when loaded: reload until the server has it complete."""
    deadline = time.time() + seconds
    while replies(browser)[-1].get_attribute("data-status") != "complete":
        assert time.time() < deadline, "the reply did not complete"
        time.sleep(0.5)
        browser.refresh()
    return replies(browser)[-1]


def test_offline_a_viewed_conversation_still_reads_with_sending_off(browser, running_server):
    server = running_server.url
    sign_up(browser, server)
    start_conversation(browser, "read me later")
    reply = wait_for_reply(browser).find_element(By.CSS_SELECTOR, ".content").text
    browser.refresh()  # now under the service worker, which keeps the page
    WebDriverWait(browser, 10).until(lambda b: b.execute_script("return !!navigator.serviceWorker.controller"))
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.emulateNetworkConditions",
                            {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0})
    browser.refresh()
    assert_offline_copy(browser, reply)

    # The server gone, the network back: the kept copy again, and the notice once the event stream fails.
    running_server.stop()
    browser.execute_cdp_cmd("Network.emulateNetworkConditions",
                            {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    browser.refresh()
    assert_offline_copy(browser, reply)


def assert_offline_copy(browser, reply):
    """The page shows the kept reply, the offline notice, and a disabled Send button."""
    WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "offline-notice").is_displayed())
    assert replies(browser)[-1].find_element(By.CSS_SELECTOR, ".content").text == reply
    assert "offline" in browser.find_element(By.ID, "offline-notice").text
    assert not browser.find_element(By.ID, "send").is_enabled()
    assert_accessible(browser, "the offline copy of a conversation")


def test_a_phone_sized_screen_folds_the_list_and_widens_the_composer(browsers, server):
    browser = browsers.new()
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 2,
                                                                    "mobile": True})
    sign_up(browser, server)
    start_conversation(browser, "small screen")
    width = browser.execute_script("return window.innerWidth")
    assert width <= 400
    listing = browser.find_element(By.ID, "sidebar-list")
    assert listing.get_attribute("open") is None
    assert not listing.find_element(By.CSS_SELECTOR, "ul").is_displayed()
    assert browser.find_element(By.CSS_SELECTOR, "#composer textarea").size["width"] >= 0.9 * width
    assert browser.find_element(By.ID, "composer").size["width"] >= 0.9 * width
    listing.find_element(By.TAG_NAME, "summary").click()
    assert listing.find_element(By.CSS_SELECTOR, "li a").is_displayed()
    assert browser.execute_script("return document.documentElement.scrollWidth") <= width  # nothing sticks out
    assert_accessible(browser, "a conversation on a phone, its list open")


def test_keyboard_alone_reaches_every_control_of_the_chat_page(browser, server):
    sign_up(browser, server)
    start_conversation(browser, "by keyboard")
    wait_for_reply(browser)
    browser.refresh()  # focus starts at the top of the page
    reached = []
    for _ in range(80):  # bounded: the page has fewer controls than this
        browser.switch_to.active_element.send_keys(Keys.TAB)
        focused = browser.switch_to.active_element
        reached.append(focused.get_attribute("id") or focused.text or focused.tag_name)
        if focused.get_attribute("id") == "send":
            outline = browser.execute_script("return getComputedStyle(arguments[0]).outlineStyle", focused)
            assert outline != "none"  # the focus is visible
            break
    for control in ("content", "send", "Conversation settings", "Share", "Copy"):
        assert control in reached, reached
    settings = browser.find_element(By.CSS_SELECTOR, "details.actions:not(.share)")
    settings.find_element(By.TAG_NAME, "summary").send_keys(Keys.ENTER)
    assert settings.get_attribute("open") is not None  # a summary opens from the keyboard
    assert_accessible(browser, "a conversation with its settings open")
