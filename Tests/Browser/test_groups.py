"""Groups in a real browser, without JavaScript (plain forms): an admin makes a group, adds a member and opens the
demo model to it alone; someone outside the group no longer sees the model and is told why when sending with it."""
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import Server, start_chromium
from parley_pages import assert_accessible, sign_in, sign_up, until, wait_for_reply


def submit(browser, label):
    """Clicks the button named `label` and waits until its form's redirect has replaced the page."""
    page = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.XPATH, f"//button[text()='{label}']").click()
    WebDriverWait(browser, 10).until(ready.staleness_of(page))
    WebDriverWait(browser, 10).until(lambda b: b.execute_script("return document.readyState") == "complete")


@pytest.fixture()
def open_server(data_dir):
    """Parley where anyone may sign up."""
    running = Server(data_dir, extra_environment={"PARLEY_SIGNUP": "open"})
    yield running.url
    running.stop()


def test_an_admin_keeps_a_model_to_one_group(browsers, open_server):
    server = open_server
    admin = browsers.new()
    sign_up(admin, server, email="admin@example.com")
    outsider = browsers.new()
    sign_up(outsider, server, email="outsider@example.com")
    # A conversation the outsider began before the model was kept to the group.
    outsider.find_element(By.CSS_SELECTOR, "#new-conversation textarea").send_keys("before")
    outsider.find_element(By.CSS_SELECTOR, "#new-conversation button[type=submit]").click()
    conversation = outsider.current_url
    wait_for_reply(outsider)  # a send while it streams would be refused for that instead

    plain = start_chromium(javascript=False)
    try:
        sign_in(plain, server, email="admin@example.com")
        plain.get(server + "/admin/groups")
        plain.find_element(By.NAME, "name").send_keys("research")
        submit(plain, "Create")
        assert plain.find_element(By.TAG_NAME, "h1").text == "research"
        plain.find_element(By.CSS_SELECTOR, "input[name=email]").send_keys("admin@example.com")
        submit(plain, "Add")
        assert "admin@example.com" in plain.find_element(By.CSS_SELECTOR, "ul.members").text
        checkbox = "input[name='models[]'][value=parley-demo]"
        plain.find_element(By.CSS_SELECTOR, checkbox).click()
        submit(plain, "Save models")
        assert plain.find_element(By.CSS_SELECTOR, checkbox).is_selected()
        assert_accessible(plain, "a group's admin page", javascript=False)
        plain.get(server + "/admin/groups")
        assert "parley-demo" in plain.find_element(By.CSS_SELECTOR, "table.usage").text
    finally:
        plain.quit()

    outsider.get(conversation)
    assert not outsider.find_elements(By.CSS_SELECTOR, "option[value=parley-demo]")
    outsider.find_element(By.CSS_SELECTOR, "form.composer textarea, #composer textarea").send_keys("after")
    outsider.find_element(By.CSS_SELECTOR, "form.composer button[type=submit], #composer button[type=submit]").click()
    until(outsider, lambda b: "ask an admin for access" in b.find_element(By.TAG_NAME, "body").text)
    admin.get(server + "/c")
    assert Select(admin.find_element(By.CSS_SELECTOR, "#new-conversation select[name=model]")).first_selected_option \
        .get_attribute("value") == "parley-demo"
