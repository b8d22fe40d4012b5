"""Conversations as trees in a real browser: edit a question, regenerate a reply, and walk the versions (◀ n/m ▶), with
and without JavaScript; the branch shown is kept across reloads."""
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from parley_pages import assert_accessible, replies, sign_up, start_conversation, wait_for_reply

FIRST = "first question here"
EDITED = "an edited question with several more words"


def questions(browser):
    """The questions shown, read in one script so that a page being replaced is never half read."""
    return browser.execute_script(
        "return [...document.querySelectorAll('article.message.user .content')].map(e => e.innerText.trim())")


def versions(article):
    shown = article.find_elements(By.CSS_SELECTOR, ".versions span")
    return shown[0].text if shown else None


def last_reply_versions(browser):
    """The `n/m` of the last reply, or None, read in one script."""
    return browser.execute_script(
        "const r = [...document.querySelectorAll('article.message.assistant')].pop();"
        "return r && r.dataset.status === 'complete' ? r.querySelector('.versions span')?.textContent ?? null : null")


def first_question(browser):
    return browser.find_elements(By.CSS_SELECTOR, "article.message.user")[0]


def reload_until_complete(browser, seconds=15):
    """Without script the page shows a reply as it was when loaded: reload until the server has it complete."""
    deadline = time.time() + seconds
    while replies(browser)[-1].get_attribute("data-status") != "complete":
        assert time.time() < deadline, "the reply did not complete"
        time.sleep(0.3)
        browser.refresh()
    return replies(browser)[-1]


def edit_first_question(browser, text):
    first_question(browser).find_element(By.CSS_SELECTOR, "a.edit").click()
    box = WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "edit-content"))
    assert box.get_attribute("value") == FIRST
    box.clear()
    box.send_keys(text)
    browser.find_element(By.CSS_SELECTOR, "#editor button[type=submit]").click()


def test_edit_and_walk_versions_without_reloading(browser, server):
    sign_up(browser, server)
    start_conversation(browser, FIRST)
    first_reply = wait_for_reply(browser).text
    edit_first_question(browser, EDITED)
    WebDriverWait(browser, 10).until(lambda b: questions(b) == [EDITED])
    edited_reply = wait_for_reply(browser).text
    assert edited_reply != first_reply and "You wrote 7 words" in edited_reply
    assert versions(first_question(browser)) == "2/2"

    browser.execute_script("window.parleyMarker = 1")  # gone if the page reloads
    first_question(browser).find_element(By.CSS_SELECTOR, "button[aria-label='Previous version']").click()
    WebDriverWait(browser, 10).until(lambda b: questions(b) == [FIRST])
    assert versions(first_question(browser)) == "1/2" and replies(browser)[-1].text.startswith(first_reply[:40])
    first_question(browser).find_element(By.CSS_SELECTOR, "button[aria-label='Next version']").click()
    WebDriverWait(browser, 10).until(lambda b: questions(b) == [EDITED])
    assert browser.execute_script("return window.parleyMarker") == 1
    first_question(browser).find_element(By.CSS_SELECTOR, "button[aria-label='Previous version']").click()
    WebDriverWait(browser, 10).until(lambda b: questions(b) == [FIRST])
    browser.refresh()  # the choice was stored
    assert questions(browser) == [FIRST] and versions(first_question(browser)) == "1/2"
    assert_accessible(browser, "a conversation with two versions of a question")


def test_regenerate_twice_and_walk_three_replies(browser, server):
    sign_up(browser, server)
    start_conversation(browser, FIRST)
    wait_for_reply(browser)
    for expected in ("2/3", "3/3"):
        count = 2 if expected == "2/3" else 3
        replies(browser)[-1].find_element(By.CSS_SELECTOR, "button[form=regenerate-form]").click()
        WebDriverWait(browser, 20).until(lambda b: last_reply_versions(b) == f"{count}/{count}")
    for expected in ("2/3", "1/3"):
        replies(browser)[-1].find_element(By.CSS_SELECTOR, "button[aria-label='Previous version']").click()
        WebDriverWait(browser, 10).until(lambda b: last_reply_versions(b) == expected)
    assert questions(browser) == [FIRST] and len(replies(browser)) == 1


def test_without_javascript_edit_and_walk_with_forms(browsers, server):
    browser = browsers.new(javascript=False)
    sign_up(browser, server)
    start_conversation(browser, FIRST)
    first_reply = reload_until_complete(browser).text
    edit_first_question(browser, EDITED)
    WebDriverWait(browser, 10).until(lambda b: questions(b) == [EDITED])
    assert reload_until_complete(browser).text != first_reply
    first_question(browser).find_element(By.CSS_SELECTOR, "button[aria-label='Previous version']").click()
    WebDriverWait(browser, 10).until(lambda b: questions(b) == [FIRST])
    assert versions(first_question(browser)) == "1/2"
    browser.refresh()
    assert questions(browser) == [FIRST]
    assert_accessible(browser, "a conversation with versions, without JavaScript", javascript=False)


def test_the_title_arrives_without_a_reload(browser, server):
    sign_up(browser, server)
    start_conversation(browser, "")
    heading = browser.find_element(By.CSS_SELECTOR, ".chat-header h1").text
    browser.execute_script("window.parleyMarker = 1")  # gone if the page reloads
    box = browser.find_element(By.ID, "content")
    box.send_keys("Planning a trip to Lisbon")
    browser.find_element(By.ID, "send").click()
    WebDriverWait(browser, 10).until(
        lambda b: b.find_element(By.CSS_SELECTOR, ".chat-header h1").text == "Planning a trip to Lisbon")
    assert heading != "Planning a trip to Lisbon"
    assert browser.title.startswith("Planning a trip to Lisbon")
    current = browser.find_element(By.CSS_SELECTOR, '.sidebar li[aria-current="page"] a')
    assert current.text == "Planning a trip to Lisbon"
    assert browser.execute_script("return window.parleyMarker") == 1


def test_a_named_message_is_shown_rather_than_the_latest(browser, server):
    sign_up(browser, server)
    start_conversation(browser, "the first question of many")
    wait_for_reply(browser)
    for number in range(6):
        box = browser.find_element(By.ID, "content")
        box.send_keys(f"follow-up number {number}")
        browser.find_element(By.ID, "send").click()
        WebDriverWait(browser, 20).until(lambda b: len(replies(b)) == number + 2)
        wait_for_reply(browser)
    first = first_question(browser).get_attribute("id")
    browser.get(browser.current_url.split("#")[0] + "#" + first)
    browser.refresh()
    WebDriverWait(browser, 10).until(lambda b: b.execute_script(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return r.top >= 0 && r.top < innerHeight", first))
