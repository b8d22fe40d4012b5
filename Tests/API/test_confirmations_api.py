"""Tool calls through the JSON API against a real `parley serve`: the answer to a call waiting for permission, and its
refusals. Each response is checked against the OpenAPI document."""
from api_calls import Api


def test_a_decision_without_a_waiting_call_is_refused(server, owner):
    conversation = owner.call("POST", "/api/conversations", {"model": "mock-fast"}).json()["id"]
    path = f"/api/conversations/{conversation}/tools/call_1"
    assert owner.call("POST", path, {"allow": True}).status == 404
    _, token = server.new_user()
    assert Api(server.port, server.make_key(token)).call("POST", path, {"allow": False}).status == 404
    assert Api(server.port).call("POST", path, {"allow": True}, check_request=False).status == 401
    malformed = owner.call("POST", path, raw=b'{"allow": ', content_type="application/json", check_request=False)
    assert malformed.status == 400
    assert owner.call("POST", path, raw=b"allow=1", content_type="text/plain", check_request=False).status == 415
