#!/usr/bin/env python3
"""Opens batches of idle event streams on a running `parley serve` and prints its resident memory per open stream.

Usage: scripts/idle-streams.py BASE_URL SERVER_PID STREAMS_PER_BATCH [BATCHES]
The server must allow sign-up (PARLEY_SIGNUP=open); the streams stay open until the script ends.
Example: scripts/idle-streams.py http://127.0.0.1:18280 "$(pgrep -f 'parley serve')" 1000 4
"""
import http.cookiejar
import json
import socket
import sys
import time
import urllib.parse
import urllib.request


def resident_kib(pid):
    """The process's resident memory in KiB, from /proc."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS for pid %d" % pid)


def new_conversation(base):
    """Signs a fresh user up through the form, and returns their API token and a new conversation's id."""
    jar = http.cookiejar.CookieJar()
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    browser.open(base + "/signup").read()
    csrf = next(cookie.value for cookie in jar if cookie.name == "parley_csrf")
    email, password = f"idle{time.time_ns()}@example.com", "bench password 1"
    form = urllib.parse.urlencode({"csrf_token": csrf, "email": email, "password": password}).encode()
    browser.open(base + "/signup", form).read()
    login = urllib.request.Request(base + "/api/login", json.dumps({"email": email, "password": password}).encode(),
                                   {"Content-Type": "application/json"})
    token = json.load(urllib.request.urlopen(login))["token"]
    create = urllib.request.Request(base + "/api/conversations", b"{}",
                                    {"Content-Type": "application/json", "Authorization": "Bearer " + token})
    return token, json.load(urllib.request.urlopen(create))["id"]


def open_streams(host, port, token, conversation, count):
    """Opens `count` event streams on one conversation, each checked to have answered 200, and returns the sockets."""
    request = (f"GET /c/{conversation}/events HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
               "Accept: text/event-stream\r\n\r\n").encode()
    sockets = [socket.create_connection((host, port)) for _ in range(count)]
    for connection in sockets:
        connection.sendall(request)
    for connection in sockets:
        connection.settimeout(10)
        status_line = connection.recv(4096).split(b"\r\n")[0]
        if b" 200 " not in status_line:
            raise RuntimeError(f"event stream answered {status_line!r}")
    return sockets


def main():
    base, pid, per_batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    batches = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    host, port = urllib.parse.urlsplit(base).hostname, urllib.parse.urlsplit(base).port
    token, conversation = new_conversation(base)
    time.sleep(1)
    start, held = resident_kib(pid), []
    for _ in range(batches):
        before = resident_kib(pid)
        held += open_streams(host, port, token, conversation, per_batch)
        time.sleep(2)
        after = resident_kib(pid)
        print(f"{len(held)} idle event streams open: RSS {before / 1024:.1f} -> {after / 1024:.1f} MB, "
              f"{(after - before) / per_batch:.1f} KB each for the last {per_batch}; "
              f"{(after - start) / len(held):.1f} KB each overall")


if __name__ == "__main__":
    main()
