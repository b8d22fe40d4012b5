"""Runs oidc-provider-mock, a real OpenID Connect provider for tests, on a free loopback port.

Prints "port N" once it listens, then serves until it is stopped. It requires a nonce, as a careful provider does, and
issues tokens over plain HTTP on loopback (AUTHLIB_INSECURE_TRANSPORT). Usage: python oidc_provider.py [TOKEN_MAX_AGE]

For the tests of a client's checks, `PUT /_fault` with a body of one word makes the provider misbehave from then on
(an empty body stops it):
- `tampered`: the ID token's payload is altered after signing (its email becomes mallory@example.com);
- `unsigned`: the ID token's header says "alg": "none" and its signature is dropped;
- `foreign-audience`: requests name the client `another-app` in place of the client's own id, so the provider issues a
  correctly signed ID token for another audience.
"""

import base64
import json
import os
import sys
import urllib.parse
from datetime import timedelta

os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"

import oidc_provider_mock  # noqa: E402
import werkzeug.serving  # noqa: E402

FAULTS = {"tampered", "unsigned", "foreign-audience"}


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_json(part: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


class Faults:
    """WSGI middleware around the real provider that applies the fault chosen through `PUT /_fault`."""

    def __init__(self, app):
        self.app = app
        self.fault = ""

    def __call__(self, environ, start_response):
        if environ["PATH_INFO"] == "/_fault" and environ["REQUEST_METHOD"] == "PUT":
            length = int(environ.get("CONTENT_LENGTH") or 0)
            fault = environ["wsgi.input"].read(length).decode().strip()
            if fault and fault not in FAULTS:
                start_response("400 Bad Request", [("Content-Type", "text/plain")])
                return [b"unknown fault"]
            self.fault = fault
            start_response("204 No Content", [])
            return []
        if self.fault == "foreign-audience":
            self.rename_client(environ)
        if environ["PATH_INFO"] == "/oauth2/token" and self.fault in ("tampered", "unsigned"):
            return self.rewrite_token(environ, start_response)
        return self.app(environ, start_response)

    @staticmethod
    def rename_client(environ):
        query = urllib.parse.parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        if any(name == "client_id" for name, _ in query):
            query = [(n, "another-app" if n == "client_id" else v) for n, v in query]
            environ["QUERY_STRING"] = urllib.parse.urlencode(query)
        auth = environ.get("HTTP_AUTHORIZATION", "")
        if auth.startswith("Basic "):
            _, secret = base64.b64decode(auth[6:]).decode().split(":", 1)
            environ["HTTP_AUTHORIZATION"] = "Basic " + base64.b64encode(f"another-app:{secret}".encode()).decode()

    def rewrite_token(self, environ, start_response):
        captured = {}

        def capture(status, headers, exc_info=None):
            captured["status"], captured["headers"] = status, headers

        body = b"".join(self.app(environ, capture))
        if captured["status"].startswith("200"):
            answer = json.loads(body)
            header, payload, signature = answer["id_token"].split(".")
            if self.fault == "tampered":
                claims = b64url_json(payload)
                claims["email"] = "mallory@example.com"
                payload = b64url(json.dumps(claims).encode())
            else:
                header, signature = b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode()), ""
            answer["id_token"] = ".".join([header, payload, signature])
            body = json.dumps(answer).encode()
        headers = [(n, v) for n, v in captured["headers"] if n.lower() != "content-length"]
        start_response(captured["status"], headers + [("Content-Length", str(len(body)))])
        return [body]


max_age = timedelta(seconds=int(sys.argv[1]) if len(sys.argv) > 1 else 3600)
app = Faults(oidc_provider_mock.app(require_nonce=True, access_token_max_age=max_age))
server = werkzeug.serving.make_server("127.0.0.1", 0, app, threaded=True)
print(f"port {server.server_port}", flush=True)
server.serve_forever()
