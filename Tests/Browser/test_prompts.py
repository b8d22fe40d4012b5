"""The prompt library in a real browser: a user saves prompts with the form; in a message box "/" lists them, the
keyboard picks one, its variable is filled in a small form and the box holds the filled text, nothing sent. Without
JavaScript, "Use" on the prompts page asks for the variable and starts a conversation with the filled prompt."""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from parley_pages import assert_accessible, console_problems, sign_up, until


def save_prompt(browser, server, title, command, body):
    """Makes a prompt with the new-prompt form and waits for the list."""
    browser.get(server + "/prompts/new")
    browser.find_element(By.NAME, "title").send_keys(title)
    browser.find_element(By.NAME, "command").send_keys(command)
    browser.find_element(By.NAME, "body").send_keys(body)
    browser.find_element(By.XPATH, "//button[text()='Create prompt']").click()
    until(browser, lambda b: b.current_url == server + "/prompts" and "/" + command in b.page_source)


def test_slash_inserts_a_prompt_and_fills_its_variable(browser, server):
    sign_up(browser, server)
    save_prompt(browser, server, "Too long; didn't read", "tldr", "Summarize in one line.")
    save_prompt(browser, server, "Translate", "translate", "Translate into {{language}}: good morning")
    assert_accessible(browser, "the prompts page")

    browser.find_element(By.LINK_TEXT, "Conversations").click()
    box = until(browser, lambda b: b.find_element(By.CSS_SELECTOR, "#new-conversation textarea"))
    box.send_keys("/t")
    listbox = until(browser, lambda b: b.find_element(By.CSS_SELECTOR, "[role=listbox]:not([hidden])"))
    options = until(browser, lambda b: len(listbox.find_elements(By.CSS_SELECTOR, "[role=option]")) == 2
                    and listbox.find_elements(By.CSS_SELECTOR, "[role=option]"))
    assert [option.text.split(" ")[0] for option in options] == ["/tldr", "/translate"]
    assert box.get_attribute("aria-controls") == listbox.get_attribute("id")
    assert box.get_attribute("aria-activedescendant") == options[0].get_attribute("id")
    assert_accessible(browser, "the composer's list of prompts")

    box.send_keys(Keys.ARROW_DOWN)
    assert box.get_attribute("aria-activedescendant") == options[1].get_attribute("id")
    assert options[1].get_attribute("aria-selected") == "true"
    box.send_keys(Keys.ENTER)
    field = until(browser, lambda b: b.find_element(By.CSS_SELECTOR, ".prompt-fill input"))
    assert browser.switch_to.active_element == field
    assert field.find_element(By.XPATH, "..").text.startswith("language")
    assert_accessible(browser, "the form for a prompt's variables")
    field.send_keys("French", Keys.ENTER)
    until(browser, lambda b: not b.find_elements(By.CSS_SELECTOR, ".prompt-fill"))
    assert box.get_attribute("value") == "Translate into French: good morning"
    assert browser.switch_to.active_element == box
    assert browser.current_url == server + "/c", "inserting a prompt sends nothing"

    # Escape closes the list and leaves what was typed.
    box.clear()
    box.send_keys("/tl")
    until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "[role=listbox]:not([hidden]) [role=option]"))
    box.send_keys(Keys.ESCAPE)
    until(browser, lambda b: not b.find_elements(By.CSS_SELECTOR, "[role=listbox]:not([hidden])"))
    assert box.get_attribute("value") == "/tl"
    assert console_problems(browser) == []


def test_without_javascript_use_starts_a_conversation_with_the_filled_prompt(browsers, server):
    browser = browsers.new(javascript=False)
    sign_up(browser, server)
    save_prompt(browser, server, "Translate", "translate", "Translate into {{language}}: good morning")
    browser.find_element(By.LINK_TEXT, "Prompts").click()
    until(browser, lambda b: b.find_element(By.CSS_SELECTOR, "li.prompt"))
    assert_accessible(browser, "the prompts page", javascript=False)
    browser.find_element(By.CSS_SELECTOR, "a[aria-label='Use Translate']").click()
    field = until(browser, lambda b: b.find_element(By.NAME, "variables[language]"))
    assert_accessible(browser, "the form that uses a prompt", javascript=False)
    field.send_keys("French")
    browser.find_element(By.XPATH, "//button[text()='Start a conversation']").click()
    until(browser, lambda b: b.find_elements(By.ID, "chat"))
    assert "Translate into French: good morning" in browser.find_element(By.ID, "messages").text
