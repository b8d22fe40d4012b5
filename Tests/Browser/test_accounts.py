"""Accounts in a real browser: sign up, sign out (which empties the offline cache), sign in again."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from parley_pages import (EMAIL, assert_accessible, fill_account_form, sign_in, sign_out, sign_up, start_conversation,
                          wait_for_reply)

SAVED_CACHES = "const done = arguments[arguments.length - 1]; caches.keys().then(done, () => done(null));"
KEPT_PAGES = """const done = arguments[arguments.length - 1];
caches.open("parley-pages").then((cache) => cache.keys()).then((keys) => done(keys.map((key) => key.url)), () => done(null));"""


def test_sign_up_sign_out_and_sign_in_again(browser, server):
    sign_up(browser, server)
    assert browser.find_element(By.CSS_SELECTOR, ".who").text == EMAIL
    start_conversation(browser, "remember me")
    wait_for_reply(browser)
    browser.refresh()  # a page opened under the service worker's control is kept for offline reading
    browser.set_script_timeout(5)
    assert "parley-pages" in browser.execute_async_script(SAVED_CACHES)
    kept = browser.execute_async_script(KEPT_PAGES)
    assert kept == [browser.current_url], kept  # this conversation page and nothing else
    sign_out(browser, server)
    assert not [name for name in browser.execute_async_script(SAVED_CACHES) if name.startswith("parley-")]
    browser.get(server + "/c")
    assert browser.current_url.startswith(server + "/login")  # signed out for real
    browser.get(server + "/login")
    fill_account_form(browser, EMAIL, "not the password")
    error = WebDriverWait(browser, 10).until(lambda b: b.find_element(By.CSS_SELECTOR, ".error[role=alert]"))
    assert error.is_displayed() and "/login" in browser.current_url
    assert_accessible(browser, "sign-in with a wrong password")
    sign_in(browser, server)
    assert "remember me" in browser.find_element(By.CSS_SELECTOR, ".conversations").text
    assert_accessible(browser, "the conversation list after signing in again")
