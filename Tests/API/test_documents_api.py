"""Documents through the JSON API against a real `parley serve`: uploaded to a conversation, read in the background,
sent with a message by id, answered from with numbered sources, and every refusal with its status and nothing
stored after it. Each response is checked against the OpenAPI document."""
import os

from api_calls import Api, multipart
from conftest import wait_for

REPORT = os.path.join(os.path.dirname(__file__), "..", "Fixtures", "documents", "field-report.pdf")


def upload(api, conversation_id, files, **options):
    body, content_type = multipart([], files)
    return api.call("POST", f"/api/conversations/{conversation_id}/documents", raw=body, content_type=content_type,
                    **options)


def read(api, document_id):
    """The document once it is no longer being read."""
    def done():
        document = api.call("GET", f"/api/documents/{document_id}").json()
        return document if document["status"] != "reading" else None
    return wait_for(done, what="the document to be read")


def test_a_document_is_read_sent_and_cited(server, owner, stranger):
    conversation = owner.call("POST", "/api/conversations", {"model": "mock-cite"}).json()["id"]
    with open(REPORT, "rb") as file:
        report = file.read()
    uploaded = upload(owner, conversation, [("document", "field-report.pdf", "application/pdf", report)])
    assert uploaded.status == 201, uploaded.body
    document = read(owner, uploaded.json()["documents"][0]["id"])
    assert document["status"] == "ready" and document["pages"] == 10

    sent = owner.call("POST", f"/api/conversations/{conversation}/messages",
                      {"content": "What is the launch code?", "document_ids": [document["id"]]})
    assert sent.status == 202, sent.body

    def answered():
        messages = owner.call("GET", f"/api/conversations/{conversation}/messages").json()["data"]
        return messages if messages[-1]["status"] != "streaming" else None
    question, reply = wait_for(answered, what="the reply")
    assert [d["id"] for d in question["documents"]] == [document["id"]]
    assert reply["status"] == "complete" and reply["sources"] and reply["document_tokens"] > 0
    assert all(source["url"].startswith(f"/documents/{document['id']}#page=") for source in reply["sources"])

    assert stranger.call("GET", f"/api/documents/{document['id']}").status == 404
    assert stranger.call("DELETE", f"/api/documents/{document['id']}").status == 404
    assert owner.call("DELETE", f"/api/documents/{document['id']}").status == 404, "a sent document stays"


def test_refused_uploads_store_nothing(server, owner, stranger):
    conversation = owner.call("POST", "/api/conversations", {"model": "mock-fast"}).json()["id"]
    refusals = {
        415: [("document", "fake.pdf", "application/pdf", b"not a pdf")],
        422: [("document", "a.txt", "text/plain", b"a")] * 11,
    }
    for status, files in refusals.items():
        refused = upload(owner, conversation, files, check_request=False)
        assert refused.status == status, refused.body
    assert owner.call("POST", f"/api/conversations/{conversation}/documents", {"document": "x"},
                      check_request=False).status == 415
    assert upload(stranger, conversation, [("document", "a.txt", "text/plain", b"a")]).status == 404
    assert upload(Api(server.port), conversation, [("document", "a.txt", "text/plain", b"a")],
                  check_request=False).status == 401

    kept = upload(owner, conversation, [("document", "notes.txt", "text/plain", b"Notes.")]).json()["documents"][0]
    read(owner, kept["id"])
    assert owner.call("DELETE", f"/api/documents/{kept['id']}").status == 204
    assert owner.call("GET", f"/api/documents/{kept['id']}").status == 404
    unknown = owner.call("POST", f"/api/conversations/{conversation}/messages",
                         {"content": "hi", "document_ids": [kept["id"]]})
    assert unknown.status == 422 and unknown.error_code == "document_not_ready"
    assert owner.call("GET", f"/api/conversations/{conversation}/messages").json()["data"] == []
