"""Sharing a conversation with someone else's browser, and the admin's dashboard chart."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PARLEY_DEV, Server, parley
from parley_pages import PASSWORD, assert_accessible, sign_in, sign_up, start_conversation, wait_for_reply


def test_a_shared_link_opens_in_a_fresh_browser_profile(browsers, server):
    owner = browsers.new()
    sign_up(owner, server)
    start_conversation(owner, "what should we share")
    wait_for_reply(owner)
    owner.find_element(By.CSS_SELECTOR, "details.share summary").click()
    owner.find_element(By.CSS_SELECTOR, 'details.share button.primary[type=submit]').click()
    link = WebDriverWait(owner, 10).until(lambda b: b.find_element(By.CSS_SELECTOR, "a.share-url")).get_attribute("href")
    assert "/s/" in link
    assert_accessible(owner, "the share dialog with its link")

    visitor = browsers.new()  # another profile: no cookies, no session
    visitor.get(link)
    shared = visitor.find_element(By.CSS_SELECTOR, "main.shared")
    assert "what should we share" in shared.text
    assert "This is Parley's demo model" in shared.find_element(By.CSS_SELECTOR, "article.message.assistant").text
    assert shared.find_element(By.CSS_SELECTOR, "form.fork button").is_displayed()
    assert not visitor.find_elements(By.CSS_SELECTOR, 'form[action="/logout"]')
    assert visitor.find_element(By.CSS_SELECTOR, 'meta[name=robots]').get_attribute("content") == "noindex"
    assert_accessible(visitor, "a shared conversation")


def test_an_admin_sees_the_dashboard_chart(browser, data_dir):
    parley("usage-fixture", "--users", "3", "--days", "14", "--messages", "60", data=data_dir, executable=PARLEY_DEV)
    parley("user", "create", "--email", "admin@example.com", "--admin", data=data_dir, stdin=PASSWORD + "\n")
    running = Server(data_dir)
    try:
        sign_in(browser, running.url, email="admin@example.com")
        browser.find_element(By.LINK_TEXT, "Admin").click()
        chart = WebDriverWait(browser, 10).until(lambda b: b.find_element(By.CSS_SELECTOR, "figure.usage-chart svg"))
        assert chart.is_displayed() and chart.size["height"] > 100
        bars = chart.find_elements(By.CSS_SELECTOR, "g[role=img] rect")
        assert bars and all(bar.size["height"] >= 0 for bar in bars)
        assert any(bar.size["height"] > 0 for bar in bars)
        assert browser.find_elements(By.CSS_SELECTOR, ".legend li")
        assert "$" in browser.find_element(By.CSS_SELECTOR, ".figures").text
        assert_accessible(browser, "the admin dashboard with its chart")
    finally:
        running.stop()
