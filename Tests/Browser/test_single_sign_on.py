"""Single sign-on in a real browser against a real OpenID Connect provider (PyPI's oidc-provider-mock, started on
loopback by Tests/PythonSupport/oidc_provider.py): the button on the sign-in page, the provider's own sign-in form,
and back into Parley where the person was going, signed in; a refusal at the provider comes back as a message. Both
with and without JavaScript: the flow is links, redirects and forms alone."""
import json
import os
import re
import socket
import sys
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

from conftest import ROOT, Server, start_chromium

sys.path.insert(0, os.path.join(ROOT, "Tests", "PythonSupport"))
from parley_http import openid_provider  # noqa: E402
from parley_pages import assert_accessible


def free_port():
    """A loopback port nobody listens on now (Parley's public address must be known before it starts)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture()
def provider():
    """The provider's issuer address; stopped afterwards."""
    with openid_provider() as issuer:
        yield issuer


def set_person(issuer, subject, **claims):
    """Gives the provider's person `subject` these claims (through its own API)."""
    request = urllib.request.Request(f"{issuer}/users/{subject}", data=json.dumps(claims).encode(), method="PUT",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 204


@pytest.fixture()
def sso_server(data_dir, provider):
    """Parley with single sign-on through the provider, sign-up by single sign-on alone, `admins` its admin group."""
    port = free_port()
    server = Server(data_dir, port=port, extra_environment={
        "PARLEY_OIDC_ISSUER": provider, "PARLEY_OIDC_CLIENT_ID": "parley", "PARLEY_OIDC_CLIENT_SECRET": "s3cret",
        "PARLEY_PUBLIC_URL": f"http://127.0.0.1:{port}", "PARLEY_OIDC_NAME": "Sign in with Example ID",
        "PARLEY_OIDC_ADMIN_GROUPS": "admins", "PARLEY_SIGNUP": "sso"})
    yield server.url, provider
    server.stop()


@pytest.mark.parametrize("javascript", [True, False])
def test_signing_in_at_the_provider_opens_where_the_person_was_going(sso_server, javascript):
    url, issuer = sso_server
    set_person(issuer, "ann", email="ann@example.com", email_verified=True, groups=["staff", "admins"])
    browser = start_chromium(javascript=javascript)
    try:
        browser.get(url + "/settings")
        WebDriverWait(browser, 10).until(ready.url_contains("/login?next="))
        assert "Create one" not in browser.page_source  # sign-up is single sign-on's alone
        if javascript:
            assert_accessible(browser, "the sign-in page with single sign-on")
        browser.find_element(By.LINK_TEXT, "Sign in with Example ID").click()
        # The provider's own page: who signs in.
        WebDriverWait(browser, 10).until(ready.url_contains(issuer + "/oauth2/authorize"))
        browser.find_element(By.NAME, "sub").send_keys("ann")
        browser.find_element(By.XPATH, "//button[text()='Authorize']").click()
        WebDriverWait(browser, 10).until(ready.url_to_be(url + "/settings"))
        assert "ann@example.com" in browser.find_element(By.TAG_NAME, "body").text
        # A member of the provider's admin group is an admin.
        browser.get(url + "/admin/users")
        assert "ann@example.com" in browser.find_element(By.TAG_NAME, "main").text
    finally:
        browser.quit()


def test_denying_at_the_provider_comes_back_with_a_message(sso_server):
    url, issuer = sso_server
    browser = start_chromium()
    try:
        browser.get(url + "/login")
        browser.find_element(By.CSS_SELECTOR, "a.sso").click()
        WebDriverWait(browser, 10).until(ready.url_contains(issuer + "/oauth2/authorize"))
        browser.find_element(By.XPATH, "//button[text()='Deny']").click()
        WebDriverWait(browser, 10).until(ready.url_contains(url + "/login?sso=cancelled"))
        alert = browser.find_element(By.CSS_SELECTOR, "[role=alert]")
        assert re.search(r"Single sign-on was cancelled", alert.text)
        assert "code=" not in browser.current_url and "token" not in browser.current_url
        browser.get(url + "/c")
        assert "/login" in browser.current_url  # nobody signed in
    finally:
        browser.quit()
