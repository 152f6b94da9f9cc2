"""The 429 handling and the error shape against a stand-in server (no binary needed), as sdk/go/retry_test.go."""

from __future__ import annotations

import email.message
import email.parser
import email.policy
import email.utils
import json
import pickle
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

import valuator

VALUATION = {"data": {"property": {"address": "5873 RIVER DR N", "city": "SEATTLE", "state": "WA", "zip": "98103",
                                   "formattedAddress": "x", "matchCode": "exact", "isDemo": True},
                      "valuation": {"estimatedValue": 123}}}
JOB = {"jobId": 42, "status": "pending", "progress": {"total": 1, "processed": 0, "successful": 0, "failed": 0},
       "results": [], "pagination": {"page": 1, "limit": 100, "total": 0, "totalPages": 0},
       "downloadUrl": "/api/batch/download/42"}


class StandIn:
    """A server that answers 429 (with retry_after as Retry-After, when set) the first `limited` times, then 200
    (202 for an upload); `answer` replaces the whole answer when set."""

    def __init__(self) -> None:
        self.limited = 0
        self.retry_after: Optional[str] = None
        self.answer: Optional[Tuple[int, Dict[str, str], bytes]] = None
        self.requests: List[Tuple[str, str, Dict[str, str], bytes]] = []
        self.url = ""


@pytest.fixture
def stand_in() -> Iterator[StandIn]:
    state = StandIn()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def handle_one(self) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n) if n else b""
            state.requests.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            if state.answer is not None:
                status, headers, raw = state.answer
            elif len(state.requests) <= state.limited:
                status, raw = 429, b'{"error":"Rate limit exceeded","code":"rate_limited","requestId":"r1","retryAfter":7}'
                headers = {"Content-Type": "application/json", "x-ratelimit-limit": "1", "x-ratelimit-remaining": "0"}
                if state.retry_after is not None:
                    headers["Retry-After"] = state.retry_after
            elif self.path.startswith("/api/batch/upload"):
                status, headers, raw = 202, {"Content-Type": "application/json"}, json.dumps(JOB).encode()
            else:
                status, headers, raw = 200, {"Content-Type": "application/json"}, json.dumps(VALUATION).encode()
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        do_GET = do_POST = handle_one

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    t = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    t.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


def client_with_waits(url: str, **kw: Any) -> Tuple[valuator.Client, List[float]]:
    """A client whose waits before a retry are recorded, not slept."""
    c = valuator.Client(url, "k", **kw)
    waits: List[float] = []
    c._sleep = waits.append  # type: ignore[assignment]
    return c, waits


def test_retry_honours_retry_after(stand_in: StandIn) -> None:
    stand_in.limited, stand_in.retry_after = 1, "1"
    c, waits = client_with_waits(stand_in.url)
    v = c.valuate("5873 River Dr N", "Seattle", "WA", "98103")
    assert v["valuation"]["estimatedValue"] == 123
    assert len(stand_in.requests) == 2 and waits == [1.0]
    method, path, headers, _ = stand_in.requests[0]
    assert method == "GET" and path == "/api/v1/property/valuation?address=5873+River+Dr+N&city=Seattle&state=WA&zip=98103"
    assert headers["x-api-key"] == "k" and headers["user-agent"] == f"valuator-python/{valuator.__version__}"


def test_retry_really_waits(stand_in: StandIn) -> None:
    stand_in.limited, stand_in.retry_after = 1, "1"
    c = valuator.Client(stand_in.url, "k")
    start = time.monotonic()
    c.valuate("5873 River Dr N, Seattle, WA 98103")
    assert time.monotonic() - start >= 0.9 and len(stand_in.requests) == 2


def test_retry_http_date(stand_in: StandIn) -> None:
    # An HTTP date in the past means "now": the retry comes at once.
    stand_in.limited = 2
    stand_in.retry_after = email.utils.formatdate(time.time() - 3600, usegmt=True)
    c, waits = client_with_waits(stand_in.url)
    c.valuate("5873 River Dr N, Seattle, WA 98103")
    assert len(stand_in.requests) == 3 and waits == [0.0, 0.0]


def test_retry_capped_and_exhausted(stand_in: StandIn) -> None:
    stand_in.limited, stand_in.retry_after = 100, "3600"
    c, waits = client_with_waits(stand_in.url, max_retries=2, max_retry_delay=0.03)
    with pytest.raises(valuator.ValuatorError) as info:
        c.valuate("5873 River Dr N, Seattle, WA 98103")
    e = info.value
    assert (e.status, e.code, e.retry_after, e.request_id) == (429, "rate_limited", 3600.0, "r1")
    assert e.rate_limit == {"limit": 1, "remaining": 0, "reset": None}
    assert len(stand_in.requests) == 3 and waits == [0.03, 0.03]
    assert "429 rate_limited" in str(e) and "retry after 3600s" in str(e)


def test_retry_off(stand_in: StandIn) -> None:
    # The body's retryAfter stands in for a missing header.
    stand_in.limited = 100
    c, waits = client_with_waits(stand_in.url, max_retries=0)
    with pytest.raises(valuator.ValuatorError) as info:
        c.valuate("5873 River Dr N, Seattle, WA 98103")
    assert info.value.status == 429 and info.value.retry_after == 7.0
    assert len(stand_in.requests) == 1 and waits == []


def test_retry_resends_upload_body(stand_in: StandIn) -> None:
    stand_in.limited, stand_in.retry_after = 1, "0"
    c, waits = client_with_waits(stand_in.url)
    csv = "address\n1 Main St, Seattle, WA 98103\n"
    job = c.upload_batch(csv.encode(), 'a "b".csv', mapping={"address": "fullAddress"},
                         webhook_url="https://example.com/hook", idempotency_key="once")
    assert job["jobId"] == 42 and len(stand_in.requests) == 2 and waits == [0.0]
    for method, path, headers, body in stand_in.requests:
        assert (method, path, headers["idempotency-key"]) == ("POST", "/api/batch/upload", "once")
        msg = email.parser.BytesParser(_class=email.message.EmailMessage, policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + headers["content-type"].encode() + b"\r\n\r\n" + body)
        assert isinstance(msg, email.message.EmailMessage)
        parts = {p.get_param("name", header="content-disposition"): p for p in msg.iter_parts()}
        assert set(parts) == {"file", "mapping", "webhookUrl"}
        assert parts["file"].get_filename() == 'a "b".csv'
        assert parts["file"].get_content_type() == "text/csv"
        assert parts["file"].get_payload(decode=True) == csv.encode()
        assert json.loads(parts["mapping"].get_payload(decode=True)) == {"address": "fullAddress"}
        assert parts["webhookUrl"].get_payload(decode=True) == b"https://example.com/hook"


def test_upload_needs_a_file_name(stand_in: StandIn) -> None:
    c = valuator.Client(stand_in.url, "k")
    with pytest.raises(ValueError):
        c.upload_batch(b"address\n")
    assert stand_in.requests == []


def test_compare_repeats_zip(stand_in: StandIn) -> None:
    stand_in.answer = (200, {"Content-Type": "application/json"}, b'{"data":{"markets":[],"notFound":["12345"]}}')
    c = valuator.Client(stand_in.url + "/", "k")
    assert c.compare_markets(["98103", "12345"], history_months=6, property_type="Condo")["notFound"] == ["12345"]
    assert stand_in.requests[0][1] == "/api/v1/markets/compare?zip=98103&zip=12345&historyMonths=6&propertyType=Condo"


@pytest.mark.parametrize(
    "status,headers,body,want",
    [
        # The server's error shape, every field read.
        (400, {"Content-Type": "application/json", "X-Request-Id": "hdr"},
         b'{"error":"Invalid input","code":"invalid_input","requestId":"r9","field":"zip",'
         b'"fields":{"zip":"Enter a 5-digit ZIP code","state":"Unknown state"}}',
         dict(status=400, code="invalid_input", message="Invalid input", request_id="r9", field="zip",
              fields={"zip": "Enter a 5-digit ZIP code", "state": "Unknown state"}, retry_after=None)),
        # A proxy's page: the status stands in for the code, the request id comes from the header.
        (502, {"Content-Type": "text/html", "X-Request-Id": "hdr"}, b"<html>" + b"x" * 300 + b"</html>",
         dict(status=502, code="http_502", message="Bad Gateway", request_id="hdr", field=None, fields={})),
        (503, {"Retry-After": "5"}, b"", dict(status=503, code="http_503", retry_after=5.0)),
        (422, {"Content-Type": "application/json"},
         b'{"error":"outside","code":"outside_records","requestId":"r2","field":"squareFeet",'
         b'"recordRange":{"field":"squareFeet","min":820,"max":5240,"homes":41,"area":"98103"}}',
         dict(code="outside_records", field="squareFeet",
              record_range={"field": "squareFeet", "min": 820, "max": 5240, "homes": 41, "area": "98103"})),
    ],
    ids=["invalid_input", "proxy_page", "no_body", "outside_records"],
)
def test_error_shape(stand_in: StandIn, status: int, headers: Dict[str, str], body: bytes,
                     want: Dict[str, Any]) -> None:
    stand_in.answer = (status, headers, body)
    c = valuator.Client(stand_in.url, "k", max_retries=0)
    with pytest.raises(valuator.ValuatorError) as info:
        c.market("98103")
    e = info.value
    for k, v in want.items():
        assert getattr(e, k) == v, k
    # An error crosses process boundaries (multiprocessing pickles it) intact.
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is valuator.ValuatorError and again.__dict__ == e.__dict__ and str(again) == str(e)


def test_wait_batch_times_out(stand_in: StandIn) -> None:
    stand_in.answer = (200, {"Content-Type": "application/json"}, json.dumps({**JOB, "status": "processing"}).encode())
    c = valuator.Client(stand_in.url, "k")
    with pytest.raises(valuator.ValuatorError) as info:
        c.wait_batch(42, interval=0.05, timeout=0.2)
    e = info.value
    assert (e.status, e.code) == (0, "timeout") and e.body["status"] == "processing"
    assert len(stand_in.requests) >= 2
    assert all(r[1] == "/api/batch/status/42?limit=1000" for r in stand_in.requests)


def test_download_writes_the_file(stand_in: StandIn, tmp_path: Any) -> None:
    stand_in.answer = (200, {"Content-Type": "text/csv"}, b"line,address\n1,x\n")
    c = valuator.Client(stand_in.url, "k")
    assert c.download_batch(7, path=tmp_path / "r.csv") == b"line,address\n1,x\n"
    assert (tmp_path / "r.csv").read_bytes() == b"line,address\n1,x\n"
    assert stand_in.requests[0][1] == "/api/batch/download/7?format=csv"
    with pytest.raises(ValueError):
        c.download_batch(7, format="pdf")


def test_bad_arguments() -> None:
    for make in (
        lambda: valuator.Client("valuator.example.com", "k"),
        lambda: valuator.Client("https://valuator.example.com", ""),
        lambda: valuator.Client("https://valuator.example.com", "k", max_retries=-1),
    ):
        with pytest.raises(ValueError):
            make()
    assert "secret-key" not in repr(valuator.Client("https://valuator.example.com", "secret-key"))


def test_no_redirect_to_another_server(stand_in: StandIn) -> None:
    # The API key goes with every request: a redirect to another server is not followed, but raised.
    stand_in.answer = (302, {"Location": "http://other.invalid/api/v1/markets?zip=98103"}, b"")
    c = valuator.Client(stand_in.url, "k")
    with pytest.raises(valuator.ValuatorError) as info:
        c.market("98103")
    assert (info.value.status, info.value.code) == (302, "http_302") and len(stand_in.requests) == 1
