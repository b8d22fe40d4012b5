"""Knowledge collections in a real browser: a user makes a collection from Settings → Knowledge, uploads a text file
with the plain form, sees it read, attaches the collection under a conversation's settings, and deletes it; every
page is accessible and the console stays clean."""
import os
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support.expected_conditions import staleness_of

from parley_pages import (assert_accessible, console_problems, sign_up, start_conversation, until,
                          wait_for_reply)

# The conversation settings' checkbox of the collection.
CHECKBOX = "//label[contains(., 'Team handbook')]/input[@type='checkbox']"
# The conversation settings' Save button.
SAVE = "//form[contains(@action, '/settings')]//button[text()='Save']"


def click_in_view(browser, element):
    """Clicks `element` once scrolled to the middle of its scrolling column (clear of the composer's dock)."""
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def test_a_collection_is_made_filled_attached_and_deleted(browser, server):
    sign_up(browser, server)
    browser.get(server + "/settings")
    browser.find_element(By.LINK_TEXT, "Knowledge").click()
    until(browser, lambda b: b.current_url == server + "/knowledge")
    assert_accessible(browser, "the knowledge page")
    browser.find_element(By.NAME, "name").send_keys("Team handbook")
    browser.find_element(By.NAME, "description").send_keys("How we work")
    browser.find_element(By.XPATH, "//button[text()='Create collection']").click()
    until(browser, lambda b: b.find_element(By.TAG_NAME, "h1").text == "Team handbook")
    collection_url = browser.current_url

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "leave-policy.md")
        with open(path, "w") as notes:
            notes.write("# Leave\n\nEveryone gets 30 days of leave a year.\n")
        browser.find_element(By.CSS_SELECTOR, "input[type=file][name=document]").send_keys(path)
        browser.find_element(By.XPATH, "//button[text()='Upload']").click()
        until(browser, lambda b: b.current_url == collection_url and "leave-policy.md" in b.page_source)

    def read(b):
        b.refresh()
        return b.find_elements(By.LINK_TEXT, "leave-policy.md")
    until(browser, read)
    assert_accessible(browser, "a collection's page")

    browser.get(server + "/c")
    start_conversation(browser, "Hello")
    wait_for_reply(browser)
    browser.refresh()
    browser.find_element(By.XPATH, "//summary[text()='Conversation settings']").click()
    assert not browser.find_element(By.XPATH, CHECKBOX).is_selected()

    page = browser.find_element(By.TAG_NAME, "html")
    click_in_view(browser, browser.find_element(By.XPATH, CHECKBOX))
    click_in_view(browser, browser.find_element(By.XPATH, SAVE))
    # The form redirects back to the same address: wait for the new page.
    until(browser, lambda b: staleness_of(page)(b))
    browser.find_element(By.XPATH, "//summary[text()='Conversation settings']").click()
    assert browser.find_element(By.XPATH, CHECKBOX).is_selected()
    assert_accessible(browser, "a conversation's settings with a collection")

    browser.get(collection_url)
    browser.find_element(By.XPATH, "//button[text()='Delete collection']").click()
    until(browser, lambda b: b.current_url == server + "/knowledge" and "No collections yet." in b.page_source)
    assert console_problems(browser) == []
