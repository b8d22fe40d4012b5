"""Settings → Account in a real browser, with and without JavaScript: a display name shown in the header, the two
sessions of the account (this one marked), and signing the other one out, which ends it in its own browser; and an
invite link, without JavaScript, making an account while sign-up is closed, once."""
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

from conftest import Server, parley
from parley_pages import PASSWORD, assert_accessible, console_problems, sign_in, sign_up, until


def session_rows(browser):
    return browser.find_elements(By.CSS_SELECTOR, "table.sessions tbody tr")


@pytest.mark.parametrize("javascript", [True, False], ids=["with-script", "without-script"])
def test_display_name_and_sessions(browsers, server, javascript):
    me = browsers.new(javascript=javascript)
    sign_up(me, server)
    elsewhere = browsers.new()
    sign_in(elsewhere, server)

    me.get(server + "/settings")
    me.find_element(By.LINK_TEXT, "Account").click()
    WebDriverWait(me, 10).until(ready.url_to_be(server + "/settings/account"))
    name = me.find_element(By.NAME, "display_name")
    name.clear()
    name.send_keys("Ada Lovelace")
    me.find_element(By.XPATH, "//button[text()='Save name']").click()
    notice = WebDriverWait(me, 10).until(lambda b: b.find_element(By.CSS_SELECTOR, ".notice[role=status]"))
    assert notice.text == "Your display name was saved."
    assert me.find_element(By.CSS_SELECTOR, ".who").text == "Ada Lovelace"

    rows = session_rows(me)
    assert len(rows) == 2, [row.text for row in rows]
    current = [row for row in rows if "current" in (row.get_attribute("class") or "")]
    assert len(current) == 1 and "This device" in current[0].text
    assert all("Chrome on Linux" in row.text and "127.0.0.1" in row.text for row in rows), [row.text for row in rows]
    assert_accessible(me, "the account page", javascript=javascript)

    other = next(row for row in rows if row is not current[0])
    other.find_element(By.XPATH, ".//button[text()='Sign out']").click()
    until(me, lambda b: b.find_element(By.CSS_SELECTOR, ".notice[role=status]").text == "That session was signed out.")
    assert len(session_rows(me)) == 1
    assert "This device" in session_rows(me)[0].text

    elsewhere.get(server + "/c")
    assert elsewhere.current_url.startswith(server + "/login")
    me.get(server + "/c")
    assert me.current_url == server + "/c" and me.find_element(By.CSS_SELECTOR, ".who").text == "Ada Lovelace"
    if javascript:
        assert console_problems(me) == []


@pytest.fixture()
def closed_server(data_dir):
    """Parley where sign-up is closed, with an admin made on the command line."""
    parley("user", "create", "--email", "admin@example.com", "--admin", data=data_dir, stdin=PASSWORD + "\n")
    running = Server(data_dir, extra_environment={"PARLEY_SIGNUP": "closed"})
    yield running.url
    running.stop()


def test_an_invite_link_without_script(browsers, closed_server):
    server = closed_server
    admin = browsers.new(javascript=False)
    sign_in(admin, server, email="admin@example.com")
    admin.get(server + "/admin/users")
    admin.find_element(By.CSS_SELECTOR, "form[action='/admin/invites'] input[name=email]").send_keys("guest@example.com")
    admin.find_element(By.XPATH, "//button[text()='Make an invite link']").click()
    link = WebDriverWait(admin, 10).until(lambda b: b.find_element(By.CSS_SELECTOR, "a.invite-link")).get_attribute("href")
    assert_accessible(admin, "the users page with a new invite", javascript=False)

    guest = browsers.new(javascript=False)
    guest.get(server + "/signup")
    assert "Sign-up is closed" in guest.find_element(By.TAG_NAME, "main").text
    guest.get(link)
    assert guest.find_element(By.NAME, "email").get_attribute("value") == "guest@example.com"
    assert_accessible(guest, "an invite's sign-up page", javascript=False)
    guest.find_element(By.NAME, "password").send_keys(PASSWORD)
    guest.find_element(By.CSS_SELECTOR, "main button[type=submit]").click()
    WebDriverWait(guest, 10).until(ready.url_to_be(server + "/c"))
    assert guest.find_element(By.CSS_SELECTOR, ".who").text == "guest@example.com"

    again = browsers.new(javascript=False)
    again.get(link)
    assert "This invite link has been used already." in again.find_element(By.TAG_NAME, "main").text
