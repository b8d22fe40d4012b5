"""Two and more real `parley serve` processes on one PostgreSQL database: a reply runs on one instance and streams,
stops, resumes and ends on another; an instance killed mid-reply has its replies marked `interrupted` by another;
the one-reply rule, budgets and revoked sessions hold across instances."""
import html
import http.client
import json
import os
import re
import urllib.parse
import urllib.request
import signal
import time

from conftest import PASSWORD, Instance, Nginx, wait_for
from parley_http import CookieClient, free_port, stop


def texts(events):
    """The answer text of a run of events."""
    return "".join(data.get("text", "") for name, _, data in events if name == "token" and isinstance(data, dict))


def test_a_reply_on_one_instance_streams_identically_on_another(site):
    a, b = site.start(), site.start()
    _, token = site.sign_up(a)
    conversation = a.new_conversation(token)
    on_a, on_b = a.events(token, conversation), b.events(token, conversation)
    assert a.send(token, conversation).status == 202
    from_a, from_b = on_a.until_done(), on_b.until_done()
    # The same events, with the same ids: a browser may reconnect to either instance. The new title comes to both,
    # where it falls among them.
    assert [event for event in from_b if event[0] != "title"] == [event for event in from_a if event[0] != "title"]
    assert [event[2]["title"] for event in from_b if event[0] == "title"] == ["hello"]
    assert from_a[0][0] == "start" and from_a[-1][2]["status"] == "complete"
    stored = b.messages(token, conversation)[-1]
    assert stored["status"] == "complete" and stored["content"] == texts(from_b)


def test_stop_on_another_instance_stops_the_reply(site):
    a, b, token, conversation, on_b = site.reply_on_a_followed_on_b()
    assert b.api("POST", f"/api/conversations/{conversation}/stop", token).status == 204
    done = on_b.until_done(seconds=10)[-1]
    assert done[2]["status"] == "stopped"
    stored = a.messages(token, conversation)[-1]
    assert stored["status"] == "stopped"
    # Stopped early: 40 tokens at 100 ms would take 4 s.
    assert 0 < len(stored["content"].split()) < 40


def test_a_stream_broken_on_one_instance_resumes_on_another(site):
    a, b = site.start(), site.start()
    _, token = site.sign_up(a)
    conversation = a.new_conversation(token)
    on_a = a.events(token, conversation)
    assert a.send(token, conversation).status == 202
    head = on_a.until(lambda event: event[0] == "token" and len(texts(on_a.received + [event])) > 20)
    on_a.close()
    last_id = head[-1][1]
    rest = b.events(token, conversation, last_event_id=last_id).until_done()
    # Nothing repeated, nothing missed: the rest continues from the last id seen.
    assert rest[0][1] != last_id
    assert texts(head) + texts(rest) == a.messages(token, conversation)[-1]["content"]


def test_a_stream_that_joins_on_an_instance_started_mid_reply_gets_the_saved_text_then_the_rest(site):
    a = site.start()
    _, token = site.sign_up(a)
    conversation = a.new_conversation(token)
    on_a = a.events(token, conversation)
    assert a.send(token, conversation).status == 202
    start_id = on_a.until(lambda event: event[0] == "start")[-1][1]
    # Once some text is saved (once a second), B starts while the reply runs: it never saw the reply's beginning.
    saved = wait_for(lambda: a.messages(token, conversation)[-1]["content"], what="a progress save")
    b = site.start()
    # Whether B's stream opens before or after B hears of the reply, it ends up starting from the saved text.
    joined = b.follow_until_done(token, conversation, start_id)
    snapshot_at = max(index for index, event in enumerate(joined) if event[0] == "start")
    start, snapshot = joined[snapshot_at], joined[snapshot_at + 1]
    assert start[1] == snapshot[1] and start[1].endswith(".0")
    assert snapshot[0] == "token" and saved.split()[0] in snapshot[2]["append"] and snapshot[2]["tail"] == ""
    # After the snapshot, the text alone; then the whole reply's HTML with `done`.
    assert all(set(event[2]) == {"text"} for event in joined[snapshot_at + 2:-1] if event[0] == "token")
    done = joined[-1][2]
    assert done["status"] == "complete"
    assert done["html"] == on_a.until_done()[-1][2]["html"]


def test_an_instance_killed_mid_reply_has_its_reply_interrupted_by_another_within_the_lease(site):
    a, b, token, conversation, on_b = site.reply_on_a_followed_on_b()
    os.kill(a.process.pid, signal.SIGKILL)
    killed = time.monotonic()
    done = on_b.until_done(seconds=20)[-1]
    took = time.monotonic() - killed
    assert done[2]["status"] == "interrupted"
    # The lease is 8 s after the last renewal (every second), and B looks every second.
    assert took <= 10.5, f"marked after {took:.1f} s"
    stored = b.messages(token, conversation)[-1]
    assert stored["status"] == "interrupted"
    # The conversation is free again: B runs the next reply.
    assert b.send(token, conversation, "again").status == 202


def test_one_reply_at_a_time_per_conversation_across_instances(site):
    a, b = site.start(), site.start()
    _, token = site.sign_up(a)
    conversation = a.new_conversation(token)
    assert a.send(token, conversation).status == 202
    refused = b.send(token, conversation, "meanwhile")
    assert refused.status == 409, refused.text
    # Nothing of the refused send was kept.
    assert [m["content"] for m in a.messages(token, conversation) if m["role"] == "user"] == ["hello"]


def test_a_budget_allows_one_running_reply_across_instances(site):
    a, b = site.start(), site.start()
    admin_email, _ = site.sign_up(a)
    _, token = site.sign_up(a)
    admin = CookieClient(a.port)
    assert admin.post_form("/login", {"email": admin_email, "password": PASSWORD}).status == 303
    page = admin.request("GET", "/admin/users")
    admin.form_token = html.unescape(re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1))
    me = a.api("GET", "/api/me", token).json()
    assert admin.post_form(f"/admin/users/{me['id']}/budget", {"budget": "5"}).status == 303
    first, second = a.new_conversation(token), a.new_conversation(token)
    assert a.send(token, first).status == 202
    refused = b.send(token, second)
    assert refused.status == 409 and refused.json()["error"]["code"] == "budget_reply_running", refused.text
    # Nothing of the refused send was kept.
    assert b.messages(token, second) == []


def test_a_session_signed_out_on_one_instance_is_refused_on_another(site):
    a, b = site.start(), site.start()
    _, token = site.sign_up(a)
    assert b.api("GET", "/api/me", token).status == 200
    assert a.api("POST", "/logout", token).status == 303
    assert b.api("GET", "/api/me", token).status == 401


def test_the_send_throttle_counts_sends_on_every_instance(site):
    a, b = site.start(PARLEY_SEND_RATE="2"), site.start(PARLEY_SEND_RATE="2")
    _, token = site.sign_up(a)
    conversations = [a.new_conversation(token, model="mock-fast") for _ in range(3)]
    assert a.send(token, conversations[0]).status == 202
    assert b.send(token, conversations[1]).status == 202
    refused = b.send(token, conversations[2])
    assert refused.status == 429 and int(refused.headers["Retry-After"]) > 0, refused.text
    assert a.send(token, conversations[2]).status == 429
    assert b.messages(token, conversations[2]) == []


def test_a_single_sign_on_begun_on_one_instance_finishes_on_another(site, provider):
    # Both instances serve one public address, as behind a load balancer; the provider sends the person back there.
    public = f"http://127.0.0.1:{free_port()}"
    sso = {"PARLEY_OIDC_ISSUER": provider, "PARLEY_OIDC_CLIENT_ID": "parley", "PARLEY_OIDC_CLIENT_SECRET": "s3cret",
           "PARLEY_PUBLIC_URL": public, "PARLEY_SIGNUP": "sso"}
    a, b = site.start(**sso), site.start(**sso)
    person = json.dumps({"email": "ann@example.com", "email_verified": True}).encode()
    request = urllib.request.Request(f"{provider}/users/ann", method="PUT", data=person,
                                     headers={"Content-Type": "application/json"})
    assert urllib.request.urlopen(request, timeout=10).status == 204
    browser = CookieClient(a.port)
    begun = browser.request("GET", "/auth/sso?next=/settings")
    assert begun.status == 303 and begun.headers["Location"].startswith(provider + "/oauth2/authorize")
    # The provider's form, answered as the person would; it sends the browser back with a code.
    authorize = urllib.parse.urlsplit(begun.headers["Location"])
    connection = http.client.HTTPConnection(authorize.hostname, authorize.port, timeout=10)
    connection.request("POST", f"{authorize.path}?{authorize.query}", body=urllib.parse.urlencode({"sub": "ann"}),
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
    back = connection.getresponse()
    assert back.status in (302, 303), back.status
    callback = urllib.parse.urlsplit(back.getheader("Location"))
    assert callback.path == "/auth/sso/callback"
    # The callback reaches B, which never saw the sign-in begin.
    browser.port = b.port
    finished = browser.request("GET", f"{callback.path}?{callback.query}")
    assert finished.status == 303 and finished.headers["Location"] == "/settings", finished.text[:300]
    assert "ann@example.com" in browser.request("GET", "/settings").text
    # It was taken: the same callback again is refused.
    assert browser.request("GET", f"{callback.path}?{callback.query}").headers["Location"] != "/settings"


def replies_run(instance):
    """How many replies an instance has run, from its `/metrics` (read from loopback)."""
    text = CookieClient(instance.port).request("GET", "/metrics").text
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("parley_reply_duration_seconds_count"))


def test_behind_the_tested_nginx_configuration_any_instance_serves_any_request(site, nginx_folder):
    a, b = site.start(), site.start()
    proxy = Nginx(nginx_folder, [a.port, b.port])
    try:
        front = Instance(None, proxy.port, None)
        _, token = site.sign_up(front)
        conversations = [front.new_conversation(token, model="mock-fast") for _ in range(6)]
        for conversation in conversations:
            stream = front.events(token, conversation)
            assert front.send(token, conversation).status == 202
            done = stream.until_done()[-1][2]
            stream.close()
            assert done["status"] == "complete" and front.messages(token, conversation)[-1]["content"]
        # nginx spread them: both instances ran replies, and every stream followed its reply wherever it ran.
        assert replies_run(a) > 0 and replies_run(b) > 0
        # With A gone, the site carries on through B.
        stop(a.process)
        conversation = front.new_conversation(token, model="mock-fast")
        stream = front.events(token, conversation)
        assert front.send(token, conversation).status == 202
        assert stream.until_done()[-1][2]["status"] == "complete"
    finally:
        proxy.stop()
