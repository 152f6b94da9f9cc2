"""The real binary for the tests: VALUATOR_BIN (else ../../bin/valuator, built by `make build`) on a free loopback
port with a fresh SQLite database in development mode, so the demo market, the demo account and its residents
are seeded, as sdk/go/server_test.go and sdk/typescript/test/server.ts start it. Without a binary the tests that
need it are skipped, except when CI or VALUATOR_TEST_REQUIRE_SDK=1 is set, where they fail."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, Optional

import pytest

REPO = Path(__file__).resolve().parents[3]
DEMO_EMAIL = "demo@valuator.dev"
DEMO_PASSWORD = "valuator-demo"


def _call(method: str, url: str, token: Optional[str], body: Dict[str, Any], want: int) -> Dict[str, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method=method,
                                 headers={"Content-Type": "application/json"})
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            status, raw = res.status, res.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    if status != want:
        raise AssertionError(f"{method} {url}: {status} {raw.decode(errors='replace').strip()}")
    return json.loads(raw)


class Server:
    def __init__(self, base_url: str, token: str) -> None:
        self.base_url = base_url
        self.token = token

    def create_key(self, name: str, rate_limit: Optional[int] = None) -> str:
        """An API key of the demo account; rate_limit None leaves the plan's default."""
        return self._key(self.token, name, rate_limit)

    def new_account_key(self, name: str) -> str:
        """Signs up a new (Free) account and creates its API key."""
        email = f"{name}-{time.time_ns()}@example.com"
        auth = _call("POST", self.base_url + "/api/auth/register", None,
                     {"email": email, "password": "sdk-test-passphrase", "fullName": "SDK Test"}, 201)
        return self._key(auth["token"], name, None)

    def _key(self, token: str, name: str, rate_limit: Optional[int]) -> str:
        body: Dict[str, Any] = {"name": name}
        if rate_limit is not None:
            body["rateLimit"] = rate_limit
        return str(_call("POST", self.base_url + "/api/api-keys", token, body, 201)["keyValue"])


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _required() -> bool:
    return bool(os.environ.get("CI")) or os.environ.get("VALUATOR_TEST_REQUIRE_SDK") == "1"


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    binary = os.environ.get("VALUATOR_BIN") or str(REPO / "bin" / "valuator")
    if not os.path.isfile(binary):
        msg = f"{binary} is missing: run make build (or set VALUATOR_BIN) to run the SDK against the real server"
        if _required():
            pytest.fail(msg)
        pytest.skip(msg)

    port = _free_port()
    addr = f"127.0.0.1:{port}"
    base = f"http://{addr}"
    data_dir = tempfile.mkdtemp(prefix="valuator-sdk-py-")
    env = dict(os.environ)
    env.update({
        "VALUATOR_ADDR": addr,
        "VALUATOR_BASE_URL": base,
        "VALUATOR_DATA_DIR": data_dir,
        "VALUATOR_DATABASE_URL": "sqlite://" + os.path.join(data_dir, "valuator.db"),
        "VALUATOR_ENV": "development",
        "VALUATOR_LOG_LEVEL": "warn",
        # The server runs on the tests' day, not the calendar's (internal/testclock.Default unless the Makefile's
        # VALUATOR_TEST_TODAY says otherwise).
        "VALUATOR_CLOCK": os.environ.get("VALUATOR_TEST_TODAY") or "2026-11-28",
    })
    stderr = tempfile.TemporaryFile()
    proc = subprocess.Popen([binary, "serve"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=stderr)

    def log() -> str:
        stderr.seek(0)
        return stderr.read().decode(errors="replace")

    def stop() -> None:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        stderr.close()
        shutil.rmtree(data_dir, ignore_errors=True)

    try:
        # The first start generates the demo market and trains the engine: allow a few minutes on a busy machine.
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"valuator exited ({proc.returncode}) before it was ready:\n{log()}")
            try:
                with urllib.request.urlopen(base + "/readyz", timeout=5) as r:
                    if r.status == 200:
                        break
            except (OSError, urllib.error.URLError):
                pass  # not listening yet, or not ready (503)
            if time.monotonic() > deadline:
                raise RuntimeError(f"valuator was not ready in 3 minutes:\n{log()}")
            time.sleep(0.25)
        login = _call("POST", base + "/api/auth/login", None, {"email": DEMO_EMAIL, "password": DEMO_PASSWORD}, 200)
    except BaseException:
        stop()
        raise
    try:
        yield Server(base, str(login["token"]))
    finally:
        stop()
