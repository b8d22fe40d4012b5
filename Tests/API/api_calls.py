"""Calls to a running Parley's API, each checked against the OpenAPI document (`Public/openapi.json`) with
openapi-core: the request (unless a test sends a bad one on purpose), the response's status, headers and body, and
every Server-Sent Event against the schema its media type names (`x-event-schema`). The operations called are
recorded, so that a test can tell which the suite never exercised."""
import http.client
import json
import os
import re
import uuid
from urllib.parse import parse_qs, urlsplit

from openapi_core import OpenAPI
from openapi_core.testing import MockRequest, MockResponse
from openapi_core.validation.request.validators import V31RequestBodyValidator, V31RequestParametersValidator
from openapi_schema_validator import OAS31Validator

DOCUMENT_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "Public", "openapi.json")
with open(DOCUMENT_PATH) as _file:
    DOCUMENT = json.load(_file)
OPENAPI = OpenAPI.from_dict(DOCUMENT)
# A call without credentials is checked for all but them (its 401 is what the test wants).
UNSIGNED_CHECKS = (V31RequestParametersValidator(OPENAPI.spec), V31RequestBodyValidator(OPENAPI.spec))
METHODS = ("get", "put", "post", "patch", "delete")

# The (method, path template) of every call whose response was checked.
EXERCISED = set()


def documented_operations():
    """Every (METHOD, path template) the document describes."""
    return {(method.upper(), path) for path, item in DOCUMENT["paths"].items() for method in item if method in METHODS}


def template_of(path):
    """The document's path template that `path` (without its query) matches, or None."""
    for template in DOCUMENT["paths"]:
        pattern = "^" + re.sub(r"\\\{[a-z_]+\\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path):
            return template
    return None


def event_validator(method, template, status, content_type):
    """A validator of the events of a documented `text/event-stream` response."""
    media = DOCUMENT["paths"][template][method.lower()]["responses"][str(status)]["content"][content_type]
    return OAS31Validator(dict(media["x-event-schema"], components=DOCUMENT["components"]))


def parse_events(text):
    """The SSE events of a stream's text, as `{"event", "id", "data"}` (data parsed as JSON when it is JSON);
    comments and `retry:` lines are skipped."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
        if "data" not in fields:
            continue
        event = {"event": fields.get("event", "message")}
        if "id" in fields:
            event["id"] = fields["id"]
        try:
            event["data"] = json.loads(fields["data"])
        except ValueError:
            event["data"] = fields["data"]
        events.append(event)
    return events


class Reply:
    """A checked response: status, headers, raw body, and the events of a stream."""

    def __init__(self, status, headers, body, events=None):
        self.status, self.headers, self.body, self.events = status, headers, body, events

    def json(self):
        return json.loads(self.body)

    @property
    def error_code(self):
        """The `code` of an API error body."""
        return self.json()["error"]["code"]


def multipart(fields, files):
    """A `multipart/form-data` body of text `fields` and `files` [(field, file name, type, bytes)]; returns it and its
    content type."""
    boundary = "parley" + uuid.uuid4().hex
    body = b""
    for name, value in fields:
        body += (f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n').encode()
    for field, file_name, media_type, data in files:
        body += (f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{file_name}"\r\n'
                 f"Content-Type: {media_type}\r\n\r\n").encode() + data + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


class Api:
    """A client of the server on `port` with a Bearer credential (a session token or an API key, or none)."""

    def __init__(self, port, token=None):
        self.port, self.token = port, token

    def call(self, method, path, body=None, *, raw=None, content_type=None, headers=None, check_request=True,
             until=None, timeout=30):
        """One request: `body` as JSON, or `raw` bytes with `content_type`. An event stream is read until its end, or
        until `until(event)` is true. The request is checked against the document unless `check_request` is False
        (a bad request on purpose); the response always is."""
        headers = dict(headers or {})
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            content_type = content_type or "application/json"
        if content_type:
            headers["Content-Type"] = content_type
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            kind = (response.getheader("Content-Type") or "").split(";")[0].strip()
            events = None
            if kind == "text/event-stream":
                text = self.read_stream(response, until)
                events = parse_events(text)
                payload = text.encode()
            else:
                payload = response.read()
            reply = Reply(response.status, response.headers, payload, events)
        finally:
            connection.close()
        self.check(method, path, headers, data, content_type, reply, check_request)
        return reply

    @staticmethod
    def read_stream(response, until):
        """The text of an event stream, up to its end or the event `until` accepts."""
        text = ""
        while True:
            line = response.readline()
            if not line:
                return text
            text += line.decode()
            if until and line in (b"\n", b"\r\n") and any(until(event) for event in parse_events(text)[-1:]):
                return text

    def check(self, method, path, headers, data, content_type, reply, check_request):
        """Validates the exchange against the document and records its operation."""
        split = urlsplit(path)
        template = template_of(split.path)
        assert template, f"{method} {split.path} is not in the OpenAPI document"
        args = {name: values[-1] for name, values in parse_qs(split.query).items()}
        request = MockRequest(f"http://127.0.0.1:{self.port}", method.lower(), split.path, args=args,
                              headers=headers, data=data or b"", content_type=content_type or "application/json")
        if check_request and "Authorization" in headers:
            OPENAPI.validate_request(request)
        elif check_request:
            for validator in UNSIGNED_CHECKS:
                validator.validate(request)
        response_type = (reply.headers.get("Content-Type") or "").split(";")[0].strip()
        # A stream's text is checked as the string its schema says; its events one by one below.
        body = reply.body.decode() if reply.events is not None else reply.body
        OPENAPI.validate_response(request, MockResponse(body, status_code=reply.status,
                                                        headers=dict(reply.headers), content_type=response_type))
        if reply.events is not None:
            validator = event_validator(method, template, reply.status, response_type)
            for event in reply.events:
                validator.validate(event)
        EXERCISED.add((method.upper(), template))
