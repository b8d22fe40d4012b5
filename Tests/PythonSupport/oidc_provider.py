"""Runs oidc-provider-mock, a real OpenID Connect provider for tests, on a free loopback port.

Prints "port N" once it listens, then serves until it is stopped. It requires a nonce, as a careful provider does, and
issues tokens over plain HTTP on loopback (AUTHLIB_INSECURE_TRANSPORT). Usage: python oidc_provider.py [TOKEN_MAX_AGE]
"""

import os
import sys
from datetime import timedelta

os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"

import oidc_provider_mock  # noqa: E402
import werkzeug.serving  # noqa: E402

max_age = timedelta(seconds=int(sys.argv[1]) if len(sys.argv) > 1 else 3600)
app = oidc_provider_mock.app(require_nonce=True, access_token_max_age=max_age)
server = werkzeug.serving.make_server("127.0.0.1", 0, app, threaded=True)
print(f"port {server.server_port}", flush=True)
server.serve_forever()
