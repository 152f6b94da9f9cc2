"""Client: Valuator's public API (/api/v1/*, /api/batch/*) over urllib, with the API key, 429 retries and errors."""

from __future__ import annotations

import json
import mimetypes
import os
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import IO, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union, cast

from ._errors import ValuatorError, error_from_answer
from ._types import BatchStatus, Market, MarketComparison, PersonResult, PropertyValuation
from ._version import __version__

__all__ = ["Client", "DONE_STATUSES", "PathOrFile"]

#: A spreadsheet to upload: a path, its bytes, or a file opened for reading (binary, or text, sent as UTF-8).
PathOrFile = Union[str, os.PathLike[str], bytes, bytearray, IO[bytes], IO[str]]

#: The statuses of a batch job that will not change any more.
DONE_STATUSES = ("completed", "failed", "cancelled")

_QueryValue = Union[None, str, int, float, Sequence[str]]


# An argument not given (None means JSON null where null has a meaning of its own).
_UNSET: Any = object()


class Client:
    """A client of one Valuator server with one API key. It keeps no state between calls, so one client can be
    shared by threads.

    Args:
        base_url: the server's root, e.g. ``"https://valuator.example.com"`` (a path prefix is kept).
        api_key: the API key, sent in the ``x-api-key`` header.
        max_retries: how many times a 429 is retried after waiting its ``Retry-After`` (header, else the body's
            ``retryAfter``, else 1 second); 0 turns retries off. After the last retry the 429 is raised.
        timeout: seconds each HTTP request may take (connect and each read).
        max_retry_delay: the longest wait before a retry, in seconds; a longer ``Retry-After`` is waited for only
            this long (the retry may then meet another 429).
        user_agent: the User-Agent header; ``valuator-python/<version>`` by default.

    Every method returns the answer's ``data`` as plain dicts and lists (decoded JSON), typed by the TypedDicts
    of :mod:`valuator` for type checkers. An answer other than 2xx raises :class:`ValuatorError`; a network
    failure raises what urllib raises (``urllib.error.URLError``, ``TimeoutError``: both ``OSError``).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        max_retries: int = 3,
        timeout: float = 30.0,
        *,
        max_retry_delay: float = 30.0,
        user_agent: Optional[str] = None,
    ) -> None:
        parts = urllib.parse.urlsplit(base_url or "")
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"valuator: base_url must be an http or https URL, not {base_url!r}")
        if not api_key:
            raise ValueError("valuator: an API key is required")
        if max_retries < 0:
            raise ValueError("valuator: max_retries must be 0 or more")
        if timeout <= 0 or max_retry_delay < 0:
            raise ValueError("valuator: timeout must be positive and max_retry_delay not negative")
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.timeout = timeout
        self.max_retry_delay = max_retry_delay
        self.user_agent = user_agent or f"valuator-python/{__version__}"
        self._api_key = api_key
        self._opener = urllib.request.build_opener(_SameOriginRedirects())
        # Waits before a retry; tests replace it.
        self._sleep: Callable[[float], None] = time.sleep

    def __repr__(self) -> str:
        return f"Client({self.base_url!r}, max_retries={self.max_retries}, timeout={self.timeout})"

    # The public API.

    def valuate(
        self,
        address: str,
        city: Optional[str] = None,
        state: Optional[str] = None,
        zip: Optional[str] = None,
        *,
        propertyType: Optional[str] = None,
        squareFeet: Optional[float] = None,
        bedrooms: Optional[float] = None,
        bathrooms: Optional[float] = None,
        yearBuilt: Optional[int] = None,
        lotSize: Optional[float] = None,
    ) -> PropertyValuation:
        """Values a home (GET /api/v1/property/valuation, 1 credit).

        Give the address as ``address`` + ``city`` + ``state`` + ``zip``, or as one line in ``address``. The facts
        (named as the API names them: ``propertyType`` one of Single Family, Condo, Townhouse, Multi-Family,
        Manufactured, Other; ``squareFeet``; ``bedrooms``; ``bathrooms``; ``yearBuilt``; ``lotSize`` in square
        feet) value a home that is not on record; a home on record is valued from its record.

        Raises ValuatorError: 404 ``property_not_found`` (not on record, and not enough facts: ``fields`` says
        which to add) or ``area_not_covered`` (outside the markets loaded); 400 naming the ``field`` that is not an
        address or a fact; 422 ``valuation_too_uncertain`` or ``outside_records`` (with ``record_range``); 402 out
        of credits; 429. Only a valuation is charged.
        """
        return cast(
            PropertyValuation,
            self._data(
                "GET",
                "/api/v1/property/valuation",
                {
                    "address": address,
                    "city": city,
                    "state": state,
                    "zip": zip,
                    "propertyType": propertyType,
                    "squareFeet": squareFeet,
                    "bedrooms": bedrooms,
                    "bathrooms": bathrooms,
                    "yearBuilt": yearBuilt,
                    "lotSize": lotSize,
                },
            ),
        )

    def market(
        self, zip: str, history_months: Optional[int] = None, property_type: Optional[str] = None
    ) -> Market:
        """A ZIP code's market statistics (GET /api/v1/markets, 1 credit): sales and rents of the 12 months up to
        the newest record, the engine's values, the monthly price index and history (``history_months``, 1-120,
        default 24), optionally of one ``property_type`` only.

        Raises ValuatorError: 404 ``market_not_found`` (no records; free), 400 naming ``zip``, ``historyMonths``
        or ``propertyType``.
        """
        params = {"zip": zip, "historyMonths": history_months, "propertyType": property_type}
        return cast(Market, self._data("GET", "/api/v1/markets", params))

    def compare_markets(
        self, zips: Sequence[str], history_months: Optional[int] = None, property_type: Optional[str] = None
    ) -> MarketComparison:
        """Up to 5 ZIP codes' market statistics side by side (GET /api/v1/markets/compare, 1 credit per ZIP code
        with records): ``{"markets": [...], "notFound": [ZIP codes without records]}``.

        Raises ValuatorError: 404 when none has records, 400 for no ZIP code, more than 5, or a bad one.
        """
        if isinstance(zips, str):
            zips = [zips]
        params = {"zip": list(zips), "historyMonths": history_months, "propertyType": property_type}
        return cast(MarketComparison, self._data("GET", "/api/v1/markets/compare", params))

    def find_person(
        self,
        name: str,
        *,
        city: str,
        state_code: str,
        street_line_1: Optional[str] = None,
        postal_code: Optional[str] = None,
        purpose: Optional[str] = None,
    ) -> PersonResult:
        """Finds a person by name and address (GET /api/v1/person, 5 credits on a hit). ``name`` is a full first
        name and a last name; ``state_code`` two capitals; ``purpose`` one of real_estate_transaction (the
        default), identity_verification, fraud_prevention, contacting_owner, legal_process.

        Raises ValuatorError: 404 when no one matches (free), 400 naming the bad field, 402.
        """
        params = {
            "name": name,
            "street_line_1": street_line_1,
            "city": city,
            "state_code": state_code,
            "postal_code": postal_code,
            "purpose": purpose,
        }
        return cast(PersonResult, self._data("GET", "/api/v1/person", params))

    def upload_batch(
        self,
        path_or_file: PathOrFile,
        file_name: Optional[str] = None,
        *,
        mapping: Union[None, str, Mapping[str, str]] = None,
        webhook_url: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> BatchStatus:
        """Uploads a CSV, XLSX or XLS spreadsheet for batch valuation (POST /api/batch/upload, multipart; 1 credit
        per home valued) and returns the queued job: ``result["jobId"]`` is what :meth:`wait_batch`,
        :meth:`batch_status` and :meth:`download_batch` take.

        Args:
            path_or_file: a path, the file's bytes, or a file object opened for reading.
            file_name: the name the server sees; its extension picks the parser (``.csv``, ``.xlsx``, ``.xls``).
                Defaults to the path's or file object's base name; required for bytes.
            mapping: column name to fullAddress, address, street, city, state, zip or ignore (a dict or JSON
                text); the columns are detected when it is None.
            webhook_url: gets a signed POST when the job finishes.
            idempotency_key: a retried upload with the same key returns the first job instead of a second one.

        Raises ValuatorError: 400 (no address column: ``body["detectedMapping"]``), 402, 408, 409, 413, 415, 429.
        """
        content, name = _read_upload(path_or_file, file_name)
        fields: List[Tuple[str, str]] = []
        if mapping is not None:
            fields.append(("mapping", mapping if isinstance(mapping, str) else json.dumps(dict(mapping))))
        if webhook_url is not None:
            fields.append(("webhookUrl", webhook_url))
        body, content_type = _multipart(fields, "file", name, content)
        headers = {"Content-Type": content_type}
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        _, _, raw = self._send("POST", "/api/batch/upload", data=body, headers=headers)
        return cast(BatchStatus, _decode(raw))

    def batch_status(self, job_id: int, page: Optional[int] = None, limit: Optional[int] = None) -> BatchStatus:
        """A job's status and one page of its rows (GET /api/batch/status/{job_id}, free): ``page`` from 1,
        ``limit`` rows a page (1-1000, default 100).

        Raises ValuatorError: 404 for a job that is not the account's, 410 ``results_deleted`` 24 hours after it
        finished.
        """
        _, _, raw = self._send("GET", f"/api/batch/status/{_job(job_id)}", params={"page": page, "limit": limit})
        return cast(BatchStatus, _decode(raw))

    def wait_batch(self, job_id: int, interval: float = 1.0, timeout: float = 300.0) -> BatchStatus:
        """Polls a job every ``interval`` seconds until it is completed, failed or cancelled, and returns its last
        status with its first 1000 rows.

        Raises ValuatorError with ``status`` 0 and ``code`` ``"timeout"`` (``body``: the last status) when the job
        is still running after ``timeout`` seconds; the job goes on, and can be waited for again.
        """
        if interval <= 0:
            raise ValueError("valuator: interval must be positive")
        deadline = time.monotonic() + timeout
        while True:
            status = self.batch_status(job_id, limit=1000)
            if status.get("status") in DONE_STATUSES:
                return status
            left = deadline - time.monotonic()
            if left <= 0:
                raise ValuatorError(
                    0,
                    "timeout",
                    f"batch job {job_id} is still {status.get('status')} after {timeout:g} s",
                    body=status,
                )
            self._sleep(min(interval, left))

    def download_batch(
        self, job_id: int, format: str = "csv", path: Union[None, str, os.PathLike[str]] = None
    ) -> bytes:
        """A job's results file (GET /api/batch/download/{job_id}, free): every row with its result, as ``"csv"``
        or ``"xlsx"``. Returns the file's bytes, and writes them to ``path`` too when one is given. Rows not yet
        valued are included as ``pending``.

        Raises ValuatorError: 404, 410 ``results_deleted``, 429 (2 downloads at once).
        """
        if format not in ("csv", "xlsx"):
            raise ValueError(f'valuator: format must be "csv" or "xlsx", not {format!r}')
        _, _, raw = self._send(
            "GET", f"/api/batch/download/{_job(job_id)}", params={"format": format}, accept="*/*"
        )
        if path is not None:
            with open(path, "wb") as f:
                f.write(raw)
        return raw

    # Portfolios: named lists of homes, revalued every month (issue 40). Answers are the OpenAPI's Portfolio
    # schemas as dicts.

    def create_portfolio(
        self,
        name: str,
        properties: Sequence[Mapping[str, Any]] = (),
        *,
        alert_threshold: Optional[float] = None,
        webhook_url: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Creates a portfolio (POST /api/v1/portfolios): each property (a dict of the lookup's fields: ``address``,
        ``city``, ``state``, ``zip``, optionally ``propertyType``, ``squareFeet``...) is valued and charged 1
        credit; ``result["results"]`` says what became of each (``valued``, or the lookup's code, not charged).
        ``alert_threshold`` (percent, 0.1-100) alerts on homes that move more from one month to the next, by email
        and, with ``webhook_url``, by a signed POST (``result["webhookSecret"]``).

        Raises ValuatorError: 400 naming the field (e.g. ``properties[1].zip``), 402 when the balance cannot pay for
        every valued home (nothing is made), 409 ``portfolio_too_large`` / ``too_many_portfolios``.
        """
        body: Dict[str, Any] = {"name": name, "properties": [dict(p) for p in properties]}
        if alert_threshold is not None:
            body["alertThreshold"] = alert_threshold
        if webhook_url is not None:
            body["webhookUrl"] = webhook_url
        return cast(Dict[str, Any], self.request("POST", "/api/v1/portfolios", json_body=body))

    def portfolios(self, page: Optional[int] = None, limit: Optional[int] = None) -> Dict[str, Any]:
        """The account's portfolios, newest first (GET /api/v1/portfolios, free): ``{"data": [...], "pagination":
        {...}}``."""
        return cast(Dict[str, Any], self.request("GET", "/api/v1/portfolios", params={"page": page, "limit": limit}))

    def portfolio(self, portfolio_id: int, page: Optional[int] = None, limit: Optional[int] = None) -> Dict[str, Any]:
        """A portfolio with a page of its homes (latest value, range, confidence, change since last month and since
        added), its totals and its value month by month (GET /api/v1/portfolios/{id}, free).

        Raises ValuatorError: 404 for a portfolio that is not the account's.
        """
        return cast(
            Dict[str, Any],
            self.request("GET", f"/api/v1/portfolios/{_id(portfolio_id)}", params={"page": page, "limit": limit}),
        )

    def portfolio_alerts(
        self, portfolio_id: int, page: Optional[int] = None, limit: Optional[int] = None
    ) -> Dict[str, Any]:
        """The alerts a portfolio has sent, newest month first (GET /api/v1/portfolios/{id}/alerts, free):
        ``{"data": [...], "pagination": {...}}``, each alert as its email and webhook carried it: ``month``,
        ``createdAt``, ``threshold`` (the percentage of that month) and ``homes`` that moved past it (``homeId``,
        ``formattedAddress``, ``previousMonth``, ``previousValue``, ``value``, ``changePercent``). A month in which
        no home moved past the threshold sent nothing and is not listed. ``limit`` 1-1000, default 12.

        Raises ValuatorError: 400 naming ``page`` or ``limit``, 404 for a portfolio that is not the account's.
        """
        path = f"/api/v1/portfolios/{_id(portfolio_id)}/alerts"
        return cast(Dict[str, Any], self.request("GET", path, params={"page": page, "limit": limit}))

    def add_portfolio_properties(self, portfolio_id: int, properties: Sequence[Mapping[str, Any]]) -> Dict[str, Any]:
        """Adds homes to a portfolio (POST /api/v1/portfolios/{id}/properties), each valued and charged 1 credit as
        on creation: ``{"results": [...]}``.

        Raises ValuatorError: 400, 402, 404, 409 as :meth:`create_portfolio`.
        """
        body = {"properties": [dict(p) for p in properties]}
        return cast(
            Dict[str, Any],
            self.request("POST", f"/api/v1/portfolios/{_id(portfolio_id)}/properties", json_body=body),
        )

    def remove_portfolio_properties(self, portfolio_id: int, home_ids: Sequence[int]) -> int:
        """Removes homes (by their ``id`` in :meth:`portfolio`'s ``homes``) with their valuations; nothing is
        refunded. Returns how many were removed.

        Raises ValuatorError: 404 (``home_not_found``: none is removed) or for another account's portfolio.
        """
        body = {"homeIds": [_id(h) for h in home_ids]}
        answer = self.request("DELETE", f"/api/v1/portfolios/{_id(portfolio_id)}/properties", json_body=body)
        return int(answer["removed"])

    def update_portfolio(
        self,
        portfolio_id: int,
        *,
        name: Any = _UNSET,
        alert_threshold: Any = _UNSET,
        webhook_url: Any = _UNSET,
    ) -> Dict[str, Any]:
        """Changes a portfolio's settings (PATCH /api/v1/portfolios/{id}, free); an argument left out is unchanged.
        ``alert_threshold=None`` turns alerts off; ``webhook_url=None`` removes the webhook. A webhook added where
        there was none gets a new ``webhookSecret`` (in the answer).

        Raises ValuatorError: 400 naming the field, 404 for a portfolio that is not the account's.
        """
        body: Dict[str, Any] = {}
        for key, value in (("name", name), ("alertThreshold", alert_threshold), ("webhookUrl", webhook_url)):
            if value is not _UNSET:
                body[key] = value
        return cast(Dict[str, Any], self.request("PATCH", f"/api/v1/portfolios/{_id(portfolio_id)}", json_body=body))

    def delete_portfolio(self, portfolio_id: int) -> None:
        """Deletes a portfolio with its homes, valuations and alerts (the ledger keeps their charges).

        Raises ValuatorError: 404 for a portfolio that is not the account's.
        """
        self.request("DELETE", f"/api/v1/portfolios/{_id(portfolio_id)}")

    def request(
        self,
        method: str,
        path: str,
        params: Optional[Mapping[str, _QueryValue]] = None,
        json_body: Any = None,
    ) -> Any:
        """Any other call of the public API, with the key, the retries and the errors: the whole answer as decoded
        JSON (None for an empty one). ``path`` starts with ``/``, e.g. ``"/api/batch/status/42"``."""
        data = None
        headers: Dict[str, str] = {}
        if json_body is not None:
            data = json.dumps(json_body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        _, _, raw = self._send(method.upper(), path, params=params, data=data, headers=headers)
        return _decode(raw) if raw.strip() else None

    # The HTTP underneath.

    def _data(self, method: str, path: str, params: Mapping[str, _QueryValue]) -> Any:
        _, _, raw = self._send(method, path, params=params)
        body = _decode(raw)
        if not isinstance(body, dict) or "data" not in body:
            raise ValuatorError(200, "bad_response", f"the answer of {path} has no data", body=body)
        return body["data"]

    def _send(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Mapping[str, _QueryValue]] = None,
        data: Optional[bytes] = None,
        headers: Optional[Mapping[str, str]] = None,
        accept: str = "application/json",
    ) -> Tuple[int, Dict[str, str], bytes]:
        """Sends a request; on 429 waits Retry-After (capped) and sends it again, up to max_retries times. Returns
        the status, the headers (lower-case names) and the body of a 2xx answer; raises ValuatorError otherwise."""
        url = self.base_url + path
        query = _query(params or {})
        if query:
            url += "?" + query
        h = {"x-api-key": self._api_key, "Accept": accept, "User-Agent": self.user_agent}
        h.update(headers or {})
        attempt = 0
        while True:
            req = urllib.request.Request(url, data=data, headers=h, method=method)
            try:
                with self._opener.open(req, timeout=self.timeout) as res:
                    return res.status, _lower(res.headers), res.read()
            except urllib.error.HTTPError as e:
                err = _http_error(e)
            if err.status != 429 or attempt >= self.max_retries:
                raise err
            attempt += 1
            wait = err.retry_after if err.retry_after is not None else 1.0
            self._sleep(min(wait, self.max_retry_delay))


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to the same scheme, host and port: the API key is sent with every request, and must
    not reach another server. A redirect elsewhere is answered as the 3xx it is (a ValuatorError)."""

    def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                         headers: Any, newurl: str) -> Optional[urllib.request.Request]:
        old, new = urllib.parse.urlsplit(req.full_url), urllib.parse.urlsplit(newurl)
        if (old.scheme, old.netloc) != (new.scheme, new.netloc):
            return None
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _http_error(e: urllib.error.HTTPError) -> ValuatorError:
    try:
        raw = e.read()
    except OSError:
        raw = b""
    finally:
        e.close()
    return error_from_answer(e.code, _lower(e.headers), raw)


def _lower(headers: Any) -> Dict[str, str]:
    if headers is None:
        return {}
    out: Dict[str, str] = {}
    for k, v in headers.items():
        out.setdefault(k.lower(), v)
    return out


def _query(params: Mapping[str, _QueryValue]) -> str:
    pairs: List[Tuple[str, str]] = []
    for k, v in params.items():
        if v is None:
            continue
        if isinstance(v, (list, tuple)):
            pairs.extend((k, _scalar(x)) for x in v)
        else:
            pairs.append((k, _scalar(v)))
    return urllib.parse.urlencode(pairs)


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _id(v: int) -> int:
    """A positive id, checked before it goes into a path (a bool or a string is refused, not sent)."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"valuator: an id is an int, not {v!r}")
    if v < 1:
        raise ValueError(f"valuator: an id is positive, not {v}")
    return v


def _job(job_id: int) -> str:
    if isinstance(job_id, bool) or not isinstance(job_id, int):
        raise TypeError(f"valuator: a job id is an int, not {job_id!r}")
    return str(job_id)


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except ValueError:
        text = raw[:200].decode("utf-8", errors="replace")
        raise ValuatorError(200, "bad_response", f"the answer is not JSON: {text!r}", body=text) from None


def _read_upload(src: PathOrFile, file_name: Optional[str]) -> Tuple[bytes, str]:
    if isinstance(src, (bytes, bytearray)):
        if not file_name:
            raise ValueError("valuator: file_name is required when the file is given as bytes (its extension picks "
                             "the parser: .csv, .xlsx or .xls)")
        return bytes(src), file_name
    if isinstance(src, (str, os.PathLike)):
        with open(src, "rb") as f:
            content = f.read()
        return content, file_name or os.path.basename(os.fspath(src))
    read = getattr(src, "read", None)
    if read is None:
        raise TypeError(f"valuator: upload a path, bytes or a file object, not {type(src).__name__}")
    content_any = read()
    content = content_any.encode("utf-8") if isinstance(content_any, str) else bytes(content_any)
    if not file_name:
        name = getattr(src, "name", None)
        if not isinstance(name, str) or not name:
            raise ValueError("valuator: file_name is required for a file object without a name")
        file_name = os.path.basename(name)
    return content, file_name


def _multipart(fields: Sequence[Tuple[str, str]], file_field: str, file_name: str, content: bytes) -> Tuple[bytes, str]:
    """A multipart/form-data body (RFC 7578) of text fields and one file, and its Content-Type."""
    boundary = "valuator-" + uuid.uuid4().hex

    def quote(s: str) -> str:
        # As Go's mime/multipart writes it (and the server reads it): a backslash and a quote escaped; a line break
        # cannot appear in a header.
        return s.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "%0D").replace("\n", "%0A")

    out: List[bytes] = []
    for name, value in fields:
        out.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{quote(name)}"\r\n\r\n'.encode("utf-8")
            + value.encode("utf-8")
            + b"\r\n"
        )
    ctype = mimetypes.guess_type(file_name)[0] or "application/octet-stream"
    out.append(
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{quote(file_field)}"; '
            f'filename="{quote(file_name)}"\r\nContent-Type: {ctype}\r\n\r\n'
        ).encode("utf-8")
        + content
        + b"\r\n"
    )
    out.append(f"--{boundary}--\r\n".encode("ascii"))
    return b"".join(out), f"multipart/form-data; boundary={boundary}"
