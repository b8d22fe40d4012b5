"""A throwaway PostgreSQL server from Debian's package for the Python suites, started at first use and stopped when the
test process exits: `initdb` into a temporary folder, the server on a Unix socket there (no TCP port), run as the
`postgres` user when the tests run as root (PostgreSQL refuses root). Each caller gets a database of its own."""
import atexit
import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid

_server = {}


def _programs():
    """The folder of the newest of Debian's PostgreSQL versions' programs."""
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda path: int(path.split("/")[-2]))
    if not versions:
        raise RuntimeError("PostgreSQL is not installed: scripts/install-deps.sh --test installs it")
    return versions[-1]


def _as_server(command):
    """`command` run as the `postgres` user when this process is root."""
    return ["runuser", "-u", "postgres", "--"] + command if os.getuid() == 0 else command


def _start():
    folder = tempfile.mkdtemp(prefix="parley-postgres-")
    if os.getuid() == 0:
        shutil.chown(folder, user="postgres")
    programs = _programs()
    subprocess.run(_as_server([f"{programs}/initdb", "-D", f"{folder}/data", "-U", "parley", "--auth=trust",
                               "-E", "UTF8", "--locale=C", "-N"]), check=True, capture_output=True, timeout=60)
    log = open(f"{folder}/server.log", "w")
    process = subprocess.Popen(_as_server([f"{programs}/postgres", "-D", f"{folder}/data", "-k", folder,
                                           "-c", "listen_addresses=", "-c", "fsync=off",
                                           "-c", "synchronous_commit=off", "-c", "max_connections=200"]),
                               stdout=log, stderr=log)
    _server.update(folder=folder, programs=programs, process=process)
    atexit.register(_stop)
    # Waits for the server to take connections (a condition), for at most 30 s.
    deadline = time.monotonic() + 30
    while subprocess.run([f"{programs}/pg_isready", "-q", "-h", folder, "-U", "parley"]).returncode != 0:
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("the test PostgreSQL did not start: " + open(f"{folder}/server.log").read())
        time.sleep(0.05)


def _stop():
    """Stops the server at once (SIGQUIT, PostgreSQL's immediate shutdown) and removes its folder."""
    folder, process = _server.get("folder"), _server.get("process")
    pid_file = f"{folder}/data/postmaster.pid"
    if process is not None and os.path.exists(pid_file):
        os.kill(int(open(pid_file).readline()), signal.SIGQUIT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    shutil.rmtree(folder, ignore_errors=True)


def new_database_url():
    """The `PARLEY_DATABASE_URL` of a new, empty database on the test server (started at the first call)."""
    if not _server:
        _start()
    name = "t" + uuid.uuid4().hex
    subprocess.run([f"{_server['programs']}/createdb", "-h", _server["folder"], "-U", "parley", name], check=True,
                   capture_output=True, timeout=60)
    return f"postgres://parley@/{name}?host={_server['folder']}"
