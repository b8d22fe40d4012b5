"""The opt-in extras: offered under Settings where the browser has them, off until turned on, then working."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from parley_pages import assert_accessible, sign_up, start_conversation, wait_for_reply

# Stands in for the system's notifications (headless Chromium shows none) and makes the tab look hidden.
RECORD_NOTIFICATIONS = """
window.shown = [];
window.Notification = class { constructor(title, options) { window.shown.push([title, options.body]); }
  addEventListener() {} static get permission() { return "granted"; } };
Object.defineProperty(document, "hidden", { get: () => true });
"""


def test_extras_are_off_until_turned_on_in_settings(browser, server):
    sign_up(browser, server)
    start_conversation(browser, "speak to me")
    wait_for_reply(browser)
    assert not browser.find_elements(By.CSS_SELECTOR, "button.speak, button.dictate")  # off by default
    conversation = browser.current_url

    browser.execute_cdp_cmd("Browser.grantPermissions", {"origin": server, "permissions": ["notifications"]})
    browser.get(server + "/settings")
    form = browser.find_element(By.ID, "browser-prefs")
    assert form.is_displayed()
    for feature in ("notify", "dictate", "speak"):
        box = form.find_element(By.CSS_SELECTOR, f"input[data-feature={feature}]")
        supported = browser.execute_script({
            "notify": "return 'Notification' in window",
            "dictate": "return !!(window.SpeechRecognition || window.webkitSpeechRecognition)",
            "speak": "return 'speechSynthesis' in window"}[feature])
        assert box.is_displayed() == supported, feature  # offered only where the browser has it
        if supported:
            box.click()
            WebDriverWait(browser, 5).until(lambda b: b.execute_script(f"return localStorage['parley.{feature}']") == "on")
    assert_accessible(browser, "settings with the extras turned on")

    browser.get(conversation)
    speak = browser.find_elements(By.CSS_SELECTOR, "article.message.assistant button.speak")
    dictate = browser.find_elements(By.CSS_SELECTOR, "#composer button.dictate")
    assert len(speak) == browser.execute_script("return 'speechSynthesis' in window ? 1 : 0")
    assert len(dictate) == browser.execute_script("return window.webkitSpeechRecognition || window.SpeechRecognition ? 1 : 0")
    for button in speak + dictate:
        assert button.get_attribute("type") == "button" and button.text
    assert_accessible(browser, "a conversation with the extras")

    browser.execute_script(RECORD_NOTIFICATIONS)
    browser.find_element(By.ID, "content").send_keys("notify me\n")
    WebDriverWait(browser, 20).until(lambda b: b.execute_script("return window.shown.length") == 1)
    assert browser.execute_script("return window.shown[0]") == ["speak to me", "The reply is ready."]
