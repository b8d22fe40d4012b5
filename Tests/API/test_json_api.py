"""Parley's JSON API against a real `parley serve`: every route under `/api` (and the conversation event stream and
the OpenAI-compatible operations) called with a session token or an API key, every response checked against the
OpenAPI document, and the refusals each route owes: 400 for a malformed body or query, 413 for one too large, 415 for
one not sent as JSON, 404 for another user's conversation, 401 without credentials; after each refusal, what was
stored is checked to be intact.
"""
import http.client
import struct
import zlib

import pytest
from openapi_spec_validator import validate as validate_document

from api_calls import DOCUMENT, EXERCISED, Api, documented_operations, multipart
from conftest import MAX_UPLOAD_MB, wait_for

# Bigger than any JSON body the server reads (1 MB).
TOO_LARGE = {"content": "a" * (1024 * 1024 + 1), "title": "x"}


def png(width=2, height=2):
    """A valid RGB PNG of `width` × `height` grey pixels."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"\x80\x80\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def new_conversation(api, **fields):
    reply = api.call("POST", "/api/conversations", dict({"model": "mock-fast"}, **fields))
    assert reply.status == 201, reply.body
    return reply.json()


def settled_messages(api, conversation_id):
    """The conversation's messages once no reply is streaming."""
    def settled():
        reply = api.call("GET", f"/api/conversations/{conversation_id}/messages")
        assert reply.status == 200
        messages = reply.json()["data"]
        return messages if all(message["status"] != "streaming" for message in messages) else None
    return wait_for(settled, what="the reply to end")


def fetch(server, path, token):
    """The body of a page route (outside the API) fetched with a Bearer token."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        return connection.getresponse().read()
    finally:
        connection.close()


def conversation_of(api, conversation_id):
    reply = api.call("GET", f"/api/conversations/{conversation_id}")
    assert reply.status == 200
    return reply.json()


def assert_refusals(api, stranger, anonymous, method, path, body=None):
    """Another user's call is 404 and a call without credentials 401."""
    assert stranger.call(method, path, body).status == 404
    assert anonymous.call(method, path, body, check_request=False).status == 401


def assert_bad_bodies(api, method, path):
    """A malformed JSON body is 400, one too large 413, one not sent as JSON 415."""
    malformed = api.call(method, path, raw=b'{"title": ', content_type="application/json", check_request=False)
    assert malformed.status == 400 and malformed.error_code == "malformed_request"
    assert api.call(method, path, TOO_LARGE, check_request=False).status == 413
    assert api.call(method, path, raw=b"title=x", content_type="text/plain", check_request=False).status == 415


def test_the_document_is_served_without_credentials_and_is_valid(anonymous):
    reply = anonymous.call("GET", "/api/openapi.json")
    assert reply.status == 200
    assert reply.headers["Content-Type"].startswith("application/json")
    assert reply.json() == DOCUMENT
    validate_document(reply.json())
    again = anonymous.call("GET", "/api/openapi.json", headers={"If-None-Match": reply.headers["ETag"]})
    assert again.status == 304


def test_login_me_and_password(server, anonymous):
    email, _ = server.new_user()
    signed_in = anonymous.call("POST", "/api/login", {"email": email, "password": "correct horse battery staple"})
    assert signed_in.status == 200
    me = Api(server.port, signed_in.json()["token"])
    assert anonymous.call("POST", "/api/login", {"email": email, "password": "wrong password"}).status == 401
    assert anonymous.call("POST", "/api/login", {"email": email}, check_request=False).status == 400
    assert_bad_bodies(anonymous, "POST", "/api/login")

    answer = me.call("GET", "/api/me")
    assert answer.status == 200 and answer.json()["email"] == email and answer.json()["is_admin"] is False
    assert Api(server.port, server.make_key(me.token)).call("GET", "/api/me").json()["email"] == email
    assert anonymous.call("GET", "/api/me").status == 401

    other_session = Api(server.port, server.login(email))
    wrong = me.call("POST", "/api/account/password", {"current_password": "nope", "new_password": "a new password"})
    assert wrong.status == 400 and wrong.error_code == "wrong_password"
    short = me.call("POST", "/api/account/password",
                    {"current_password": "correct horse battery staple", "new_password": "short"})
    assert short.status == 422
    assert other_session.call("GET", "/api/me").status == 200, "a refused change signed nobody out"
    assert_bad_bodies(me, "POST", "/api/account/password")
    assert anonymous.call("POST", "/api/account/password", {"current_password": "a", "new_password": "b"},
                          check_request=False).status == 401
    changed = me.call("POST", "/api/account/password",
                      {"current_password": "correct horse battery staple", "new_password": "a new password"})
    assert changed.status == 204
    assert other_session.call("GET", "/api/me").status == 401
    assert me.call("GET", "/api/me").status == 200


def test_api_keys(server, owner, anonymous):
    made = owner.call("POST", "/api/keys", {"name": "laptop"})
    assert made.status == 201 and made.json()["key"].startswith("pk-")
    key = Api(server.port, made.json()["key"])
    listed = owner.call("GET", "/api/keys")
    assert listed.status == 200 and [entry["name"] for entry in listed.json()["data"]] == ["laptop"]
    assert "key" not in listed.json()["data"][0]
    assert owner.call("POST", "/api/keys", {"name": ""}, check_request=False).status == 422
    assert_bad_bodies(owner, "POST", "/api/keys")
    assert key.call("GET", "/api/keys").status == 401, "a key cannot list keys"
    assert key.call("GET", "/api/conversations").status == 200
    assert anonymous.call("GET", "/api/keys").status == 401
    assert anonymous.call("POST", "/api/keys", {"name": "x"}).status == 401
    key_id = made.json()["id"]
    assert key.call("DELETE", f"/api/keys/{key_id}").status == 401
    assert owner.call("DELETE", f"/api/keys/{key_id}").status == 204
    assert owner.call("DELETE", f"/api/keys/{key_id}").status == 404
    assert key.call("GET", "/api/conversations").status == 401, "a revoked key is refused"


def test_models(owner, anonymous):
    reply = owner.call("GET", "/api/models")
    assert reply.status == 200
    assert {"mock-fast", "mock-slow", "parley-demo"} <= {model["id"] for model in reply.json()["data"]}
    assert anonymous.call("GET", "/api/models").status == 401


def test_conversations_create_read_rename_and_delete(server, owner, stranger, anonymous):
    conversation = new_conversation(owner, title="First title", system_prompt="Be brief.",
                                    settings={"temperature": 0.5, "stop": ["END"]})
    path = f"/api/conversations/{conversation['id']}"
    assert conversation["settings"] == {"temperature": 0.5, "stop": ["END"]}
    assert conversation_of(owner, conversation["id"]) == conversation
    listed = owner.call("GET", "/api/conversations?limit=10")
    assert listed.status == 200 and conversation["id"] in [entry["id"] for entry in listed.json()["data"]]
    assert owner.call("GET", "/api/conversations?limit=0", check_request=False).status == 400
    assert owner.call("POST", "/api/conversations", {"model": "no-such-model"}).status == 422
    assert_bad_bodies(owner, "POST", "/api/conversations")
    assert anonymous.call("POST", "/api/conversations", {}).status == 401
    assert anonymous.call("GET", "/api/conversations").status == 401

    renamed = owner.call("PATCH", path, {"title": "Renamed"})
    assert renamed.status == 200 and renamed.json()["title"] == "Renamed"
    assert owner.call("PATCH", path, {"title": ""}).status == 422
    assert owner.call("PATCH", path, {"title": 7}, check_request=False).status == 400
    assert_bad_bodies(owner, "PATCH", path)
    assert_refusals(owner, stranger, anonymous, "PATCH", path, {"title": "Stolen"})
    assert_refusals(owner, stranger, anonymous, "GET", path)
    assert_refusals(owner, stranger, anonymous, "DELETE", path)
    kept = conversation_of(owner, conversation["id"])
    assert kept["title"] == "Renamed" and kept["system_prompt"] == "Be brief."

    assert owner.call("DELETE", path).status == 204
    assert owner.call("GET", path).status == 404


def test_pin_and_archive(server, owner, stranger, anonymous):
    conversation = new_conversation(owner, title="Placed")
    base = f"/api/conversations/{conversation['id']}"
    with_key = Api(server.port, server.make_key(owner.token))
    pinned = with_key.call("POST", base + "/pin")
    assert pinned.status == 200 and pinned.json()["pinned"] is True
    assert owner.call("POST", base + "/pin").json()["pinned"] is True, "pinning twice is harmless"
    archived = owner.call("POST", base + "/archive")
    assert archived.status == 200 and archived.json()["archived"] is True
    listed = owner.call("GET", "/api/conversations?archived=1")
    assert conversation["id"] in [entry["id"] for entry in listed.json()["data"]]
    assert conversation["id"] not in [entry["id"] for entry in owner.call("GET", "/api/conversations").json()["data"]]

    for change in ("pin", "unpin", "archive", "unarchive"):
        assert_refusals(owner, stranger, anonymous, "POST", f"{base}/{change}")
        assert owner.call("POST", f"/api/conversations/999999999/{change}").status == 404
    kept = conversation_of(owner, conversation["id"])
    assert kept["pinned"] is True and kept["archived"] is True, "the refused calls changed nothing"

    assert owner.call("POST", base + "/unpin").json()["pinned"] is False
    unarchived = owner.call("POST", base + "/unarchive")
    assert unarchived.status == 200 and unarchived.json()["archived"] is False


def test_send_stream_regenerate_branch_and_delete(server, owner, stranger, anonymous):
    conversation = new_conversation(owner)
    base = f"/api/conversations/{conversation['id']}"
    accepted = owner.call("POST", base + "/messages", {"content": "First question", "request_id": "r-1"})
    assert accepted.status == 202
    assert accepted.json()["events_url"] == f"/c/{conversation['id']}/events"
    first = settled_messages(owner, conversation["id"])
    assert [message["role"] for message in first] == ["user", "assistant"]
    assert first[1]["status"] == "complete" and first[1]["usage"]["completion_tokens"] > 0
    repeated = owner.call("POST", base + "/messages", {"content": "First question", "request_id": "r-1"})
    assert repeated.status == 202 and repeated.json()["repeated"] is True

    streamed = owner.call("POST", base + "/messages", {"content": "Second question"},
                          headers={"Accept": "text/event-stream"})
    assert streamed.status == 200
    kinds = [event["event"] for event in streamed.events]
    assert kinds[0] == "start" and kinds[-1] == "done" and "token" in kinds
    assert streamed.events[-1]["data"]["status"] == "complete"

    regenerated = owner.call("POST", base + "/regenerate", {}, headers={"Accept": "text/event-stream"})
    assert regenerated.status == 200 and regenerated.events[-1]["event"] == "done"
    every = owner.call("GET", base + "/messages?branch=all").json()["data"]
    assert len(every) == 5, "the regenerated reply is a sibling: both versions are kept"
    assert owner.call("GET", base + "/messages?branch=some", check_request=False).status == 400
    again = owner.call("POST", base + "/regenerate", {"message_id": first[1]["id"]})
    assert again.status == 202
    settled_messages(owner, conversation["id"])
    not_a_reply = owner.call("POST", base + "/regenerate", {"message_id": first[0]["id"]})
    assert not_a_reply.status == 422 and not_a_reply.error_code == "not_a_reply"

    chosen = owner.call("PUT", base + "/current", {"message_id": first[1]["id"]})
    assert chosen.status == 200
    branch = [message["id"] for message in owner.call("GET", base + "/messages").json()["data"]]
    assert first[1]["id"] in branch and branch[-1] == chosen.json()["current_leaf_id"]
    assert owner.call("PUT", base + "/current", {}, check_request=False).status == 400
    assert owner.call("POST", base + "/messages", {"content": ""}).status == 422
    for method, path in (("POST", base + "/messages"), ("POST", base + "/regenerate"), ("PUT", base + "/current")):
        assert_bad_bodies(owner, method, path)
    stored = owner.call("GET", base + "/messages?branch=all").json()["data"]
    assert len(stored) == 6
    message_path = f"{base}/messages/{every[-1]['id']}"
    for method, path, body in (("POST", base + "/messages", {"content": "Stolen"}),
                               ("GET", base + "/messages", None), ("POST", base + "/regenerate", {}),
                               ("PUT", base + "/current", {"message_id": first[1]["id"]}),
                               ("POST", base + "/stop", None), ("DELETE", message_path, None)):
        assert_refusals(owner, stranger, anonymous, method, path, body)
    assert owner.call("GET", base + "/messages?branch=all").json()["data"] == stored, "the refusals changed nothing"
    assert conversation_of(owner, conversation["id"])["current_leaf_id"] == chosen.json()["current_leaf_id"]

    assert owner.call("DELETE", message_path).status == 204
    assert owner.call("DELETE", message_path).status == 404
    assert len(owner.call("GET", base + "/messages?branch=all").json()["data"]) == 5


def test_stop_and_the_event_stream(server, owner, stranger, anonymous):
    conversation = new_conversation(owner, model="mock-slow")
    base = f"/api/conversations/{conversation['id']}"
    assert owner.call("POST", base + "/messages", {"content": "Take your time"}).status == 202
    started = owner.call("GET", f"/c/{conversation['id']}/events", until=lambda event: event["event"] == "token")
    assert started.status == 200 and started.events[0]["event"] == "start"
    busy = owner.call("POST", base + "/messages", {"content": "Meanwhile"})
    assert busy.status == 409 and busy.error_code == "generation_running"
    assert owner.call("POST", base + "/stop").status == 204
    stopped = settled_messages(owner, conversation["id"])
    assert stopped[-1]["status"] == "stopped"
    assert owner.call("POST", base + "/stop").status == 204, "stopping is idempotent"
    resumed = owner.call("GET", f"/c/{conversation['id']}/events", headers={"Last-Event-ID": started.events[0]["id"]},
                         until=lambda event: event["event"] == "done")
    assert resumed.events[-1]["data"]["status"] == "stopped"
    assert started.events[0] not in resumed.events, "a resumed stream starts after the id it was given"
    events = f"/c/{conversation['id']}/events"
    assert stranger.call("GET", events, headers={"Accept": "text/event-stream, application/json"}).status == 404
    assert anonymous.call("GET", events, headers={"Accept": "application/json"}).status == 401
    assert anonymous.call("GET", events, headers={"Accept": "text/event-stream"}).status == 303


def test_images_upload_with_a_message(server, owner, stranger, anonymous):
    conversation = new_conversation(owner)
    path = f"/api/conversations/{conversation['id']}/messages"
    image = png()

    def upload(api, files, fields=(("content", "What is this?"),), **options):
        body, content_type = multipart(list(fields), files)
        return api.call("POST", path, raw=body, content_type=content_type, **options)

    sent = upload(Api(server.port, server.make_key(owner.token)), [("image", "grey.png", "image/png", image)])
    assert sent.status == 202, sent.body
    messages = settled_messages(owner, conversation["id"])
    attachment = messages[0]["attachments"][0]
    assert attachment["content_type"] == "image/png" and attachment["bytes"] == len(image)
    assert fetch(server, f"/attachments/{attachment['id']}", owner.token) == image

    too_large = b"\x89PNG\r\n\x1a\n" + b"\x00" * (MAX_UPLOAD_MB * 1024 * 1024 + 1)
    refusals = {
        413: [("image", "big.png", "image/png", too_large)],
        415: [("image", "notes.png", "image/png", b"not an image at all")],
        422: [("image", f"{index}.png", "image/png", image) for index in range(5)],
    }
    for status, files in refusals.items():
        refused = upload(owner, files, check_request=False)
        assert refused.status == status, f"{refused.status}: {refused.body[:200]}"
    malformed = owner.call("POST", path, raw=b"--x\r\nnonsense", content_type="multipart/form-data; boundary=x",
                           check_request=False)
    assert malformed.status == 400
    assert upload(stranger, [("image", "grey.png", "image/png", image)]).status == 404
    assert upload(anonymous, [("image", "grey.png", "image/png", image)], check_request=False).status == 401
    assert len(settled_messages(owner, conversation["id"])) == 2, "the refused uploads stored nothing"


def test_search(server, owner, stranger, anonymous):
    conversation = new_conversation(owner, title="Zebra notes")
    owner.call("POST", f"/api/conversations/{conversation['id']}/messages", {"content": "Quokkas are marsupials"})
    settled_messages(owner, conversation["id"])
    hits = owner.call("GET", "/api/search?q=quokkas")
    assert hits.status == 200
    hit = hits.json()["data"][0]
    assert hit["conversation_id"] == conversation["id"] and hit["role"] == "user"
    assert "<mark>" in hit["snippet_html"] and "<mark>" not in hit["snippet"] and "Quokkas" in hit["snippet"]
    by_title = owner.call("GET", "/api/search?q=zebra&limit=1").json()["data"]
    assert len(by_title) == 1 and by_title[0]["conversation_id"] == conversation["id"]
    assert stranger.call("GET", "/api/search?q=quokkas").json()["data"] == [], "nobody finds another's words"
    for query in ("", "?q=", "?q=%20", "?q=quokkas&limit=0", "?q=quokkas&limit=51", "?q=quokkas&limit=many"):
        refused = owner.call("GET", "/api/search" + query, check_request=False)
        assert refused.status == 400, query
    assert anonymous.call("GET", "/api/search?q=quokkas").status == 401


def test_usage_this_month(server, owner, anonymous):
    conversation = new_conversation(owner)
    owner.call("POST", f"/api/conversations/{conversation['id']}/messages", {"content": "Count me"})
    settled_messages(owner, conversation["id"])
    usage = wait_for(lambda: (lambda answer: answer if answer["totals"]["requests"] >= 1 else None)(
        owner.call("GET", "/api/usage").json()), what="the reply's usage")
    assert usage["budget"]["budget_usd"] is None and usage["budget"]["percent_used"] is None
    assert usage["budget"]["spent_usd"] == pytest.approx(usage["totals"]["cost_usd"])
    assert usage["totals"]["cost_usd"] > 0
    assert [row["model"] for row in usage["by_model"]] == ["mock-fast"]
    assert usage["by_day"][0]["day"] >= usage["month"] and usage["month"].endswith("-01")
    assert usage["conversations"][0]["conversation_id"] == conversation["id"]

    admin = server.admin_client()
    me = owner.call("GET", "/api/me").json()
    assert admin.post_form(f"/admin/users/{me['id']}/budget", {"budget": "5"}).status == 303
    limited = owner.call("GET", "/api/usage").json()["budget"]
    assert limited["budget_usd"] == 5 and limited["percent_used"] == 0 and limited["exhausted"] is False
    assert anonymous.call("GET", "/api/usage").status == 401


def test_assistants(server, owner, stranger, anonymous):
    made = owner.call("POST", "/api/assistants", {"name": "Helper", "model": "mock-fast", "starters": ["Hi"]})
    assert made.status == 201 and made.json()["can_change"] is True
    path = f"/api/assistants/{made.json()['id']}"
    assert owner.call("GET", "/api/assistants").status == 200
    assert owner.call("GET", path).json()["name"] == "Helper"
    changed = owner.call("PATCH", path, {"description": "Helps"})
    assert changed.status == 200 and changed.json()["version"] == 2
    assert owner.call("POST", "/api/assistants", {"model": "mock-fast"}).status == 422
    assert_bad_bodies(owner, "POST", "/api/assistants")
    assert_bad_bodies(owner, "PATCH", path)
    started = owner.call("POST", "/api/conversations", {"assistant_id": made.json()["id"]})
    assert started.status == 201 and started.json()["assistant"]["name"] == "Helper"
    copy = owner.call("POST", path + "/duplicate")
    assert copy.status == 201 and copy.json()["id"] != made.json()["id"]
    assert owner.call("PUT", path + "/icon", raw=png(), content_type="image/png").status == 204
    assert owner.call("GET", path).json()["icon_url"] == path.replace("/api", "") + "/icon"
    assert owner.call("PUT", path + "/icon", raw=b"not an image", content_type="image/png").status == 422
    assert stranger.call("DELETE", path + "/icon").status == 404
    assert owner.call("DELETE", path + "/icon").status == 204
    assert "icon_url" not in owner.call("GET", path).json()
    for method, body in (("GET", None), ("PATCH", {"name": "Stolen"}), ("DELETE", None)):
        assert_refusals(owner, stranger, anonymous, method, path, body)
    assert_refusals(owner, stranger, anonymous, "POST", path + "/duplicate")
    assert owner.call("DELETE", path).status == 204
    assert owner.call("GET", path).status == 404


def test_prompts(server, owner, stranger, anonymous):
    made = owner.call("POST", "/api/prompts", {"title": "Translate", "command": "translate",
                                                "body": "Translate into {{language}}: {{text}}"})
    assert made.status == 201 and made.json()["variables"] == ["language", "text"]
    path = f"/api/prompts/{made.json()['id']}"
    listed = owner.call("GET", "/api/prompts?q=/trans")
    assert listed.status == 200 and [p["command"] for p in listed.json()["data"]] == ["translate"]
    assert owner.call("GET", path).json()["title"] == "Translate"
    assert owner.call("PATCH", path, {"title": "Translator"}).json()["title"] == "Translator"
    used = owner.call("POST", path + "/use", {"variables": {"language": "French", "text": "hello"}})
    assert used.status == 200 and used.json()["text"] == "Translate into French: hello"
    assert owner.call("POST", path + "/use", {"variables": {"language": "French"}}).status == 422
    assert owner.call("POST", "/api/prompts", {"title": "x", "command": "Bad Command", "body": "x"}).status == 422
    assert_bad_bodies(owner, "POST", "/api/prompts")
    assert_bad_bodies(owner, "PATCH", path)
    copy = owner.call("POST", path + "/duplicate")
    assert copy.status == 201 and copy.json()["command"] == "translate-2"
    for method, body in (("GET", None), ("PATCH", {"title": "Stolen"}), ("DELETE", None)):
        assert_refusals(owner, stranger, anonymous, method, path, body)
    assert_refusals(owner, stranger, anonymous, "POST", path + "/duplicate")
    assert owner.call("DELETE", path).status == 204
    assert owner.call("GET", path).status == 404


def test_knowledge_collections(server, owner, stranger, anonymous):
    made = owner.call("POST", "/api/collections", {"name": "Handbook", "description": "How we work"})
    assert made.status == 201 and made.json()["document_count"] == 0
    path = f"/api/collections/{made.json()['id']}"
    listed = owner.call("GET", "/api/collections")
    assert listed.status == 200 and [c["name"] for c in listed.json()["data"]] == ["Handbook"]
    assert owner.call("GET", path).json()["description"] == "How we work"
    assert owner.call("PATCH", path, {"name": "Guide"}).json()["name"] == "Guide"
    assert owner.call("PATCH", path, {"name": ""}).status == 422
    assert owner.call("POST", "/api/collections", {"name": "x" * 101}).status == 422
    assert_bad_bodies(owner, "POST", "/api/collections")
    assert_bad_bodies(owner, "PATCH", path)

    files, content_type = multipart([], [("document", "notes.md", "text/markdown", b"# Notes\n\nThe code is 42.\n"),
                                        ("document", "tool.exe", "application/octet-stream", b"MZ\x90\x00")])
    uploaded = owner.call("POST", path + "/documents", raw=files, content_type=content_type)
    assert uploaded.status == 201, uploaded.body
    assert [d["name"] for d in uploaded.json()["data"]] == ["notes.md"]
    assert [(r["name"], r["status"]) for r in uploaded.json()["refused"]] == [("tool.exe", 415)]
    document_id = uploaded.json()["data"][0]["id"]
    bad, bad_type = multipart([], [("document", "fake.pdf", "application/pdf", b"not a pdf")])
    assert owner.call("POST", path + "/documents", raw=bad, content_type=bad_type).status == 415
    assert owner.call("POST", path + "/documents", {"document": "x"}, check_request=False).status == 415
    def read():
        documents = owner.call("GET", path + "/documents").json()["data"]
        return documents if documents and documents[0]["status"] == "ready" else None
    assert [d["name"] for d in wait_for(read, what="the document to be read")] == ["notes.md"]

    conversation = new_conversation(owner)
    attached = owner.call("PATCH", f"/api/conversations/{conversation['id']}", {"collection_ids": [made.json()["id"]]})
    assert attached.status == 200
    theirs = stranger.call("POST", "/api/collections", {"name": "Theirs"}).json()["id"]
    refused = owner.call("PATCH", f"/api/conversations/{conversation['id']}", {"collection_ids": [theirs]})
    assert refused.status == 422 and refused.error_code == "unknown_collection"
    assistant = owner.call("POST", "/api/assistants", {"name": "Helper", "collection_ids": [made.json()["id"]]})
    assert assistant.status == 201 and assistant.json()["collection_ids"] == [made.json()["id"]]

    for method, body in (("GET", None), ("PATCH", {"name": "Stolen"})):
        assert_refusals(owner, stranger, anonymous, method, path, body)
    assert_refusals(owner, stranger, anonymous, "GET", path + "/documents")
    assert_refusals(owner, stranger, anonymous, "DELETE", f"{path}/documents/{document_id}")
    assert stranger.call("POST", path + "/documents", raw=files, content_type=content_type).status == 404
    assert anonymous.call("POST", path + "/documents", raw=files, content_type=content_type,
                          check_request=False).status == 401
    assert_refusals(owner, stranger, anonymous, "DELETE", path)
    assert owner.call("GET", path).json()["name"] == "Guide"
    assert owner.call("DELETE", f"{path}/documents/{document_id}").status == 204
    assert owner.call("GET", path + "/documents").json()["data"] == []
    assert owner.call("DELETE", path).status == 204
    assert owner.call("GET", path).status == 404


def test_the_openai_compatible_operations(server, owner, anonymous):
    key = Api(server.port, server.make_key(owner.token))
    models = key.call("GET", "/v1/models")
    assert models.status == 200 and "mock-fast" in [model["id"] for model in models.json()["data"]]
    assert key.call("GET", "/v1/models/mock-fast").json()["id"] == "mock-fast"
    assert key.call("GET", "/v1/models/no-such-model").status == 404
    request = {"model": "mock-fast", "messages": [{"role": "user", "content": "Say hello"}], "max_tokens": 50}
    whole = key.call("POST", "/v1/chat/completions", request)
    assert whole.status == 200 and whole.json()["object"] == "chat.completion"
    streamed = key.call("POST", "/v1/chat/completions",
                        dict(request, stream=True, stream_options={"include_usage": True}))
    assert streamed.status == 200 and streamed.events[-1]["data"] == "[DONE]"
    assert anonymous.call("GET", "/v1/models").status == 401
    assert key.call("POST", "/v1/chat/completions", {"model": "mock-fast"}, check_request=False).status == 400


def test_every_documented_operation_was_exercised():
    missing = documented_operations() - EXERCISED
    assert not missing, f"operations no test called: {sorted(missing)}"
