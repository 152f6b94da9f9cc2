"""ValuatorError: every answer other than 2xx, built from the server's one error shape (api/openapi.yaml, Error)."""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any, Dict, Mapping, Optional, Type, cast

from ._types import Balance, RateLimit, RecordRange


class ValuatorError(Exception):
    """An answer other than 2xx, or a batch job that did not finish in time (``status`` 0, ``code`` ``"timeout"``).

    Attributes:
        status: the HTTP status (0 for a :meth:`Client.wait_batch` timeout).
        code: the server's stable snake_case code (``invalid_input``, ``property_not_found``, ``area_not_covered``,
            ``valuation_too_uncertain``, ``outside_records``, ``insufficient_credits``, ``rate_limited``, ...);
            ``http_<status>`` when the answer had none.
        message: the server's message, for a person to read.
        field: the first bad field (400, 409, 415) or, for a lookup's 404, the first missing fact; else None.
        fields: every bad field (or missing fact) and its message; an empty dict when there are none.
        request_id: the server's id of the request (``requestId``, else the ``X-Request-Id`` header).
        retry_after: seconds to wait before trying again (429), from the ``Retry-After`` header or the body's
            ``retryAfter``; else None.
        credit_balance: for 402, what the account has left (the same figures as the dashboard); else None.
        record_range: for 422 ``outside_records``, what the records of the area and type hold for ``field``.
        rate_limit: the ``x-ratelimit-*`` headers (a value is None when its header is missing).
        body: the error body as decoded JSON (a dict), or the raw text when it was not JSON; for a batch
            timeout, the job's last status.
    """

    status: int
    code: str
    message: str
    field: Optional[str]
    fields: Dict[str, str]
    request_id: Optional[str]
    retry_after: Optional[float]
    credit_balance: Optional[Balance]
    record_range: Optional[RecordRange]
    rate_limit: RateLimit
    body: Any

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: Optional[str] = None,
        fields: Optional[Mapping[str, str]] = None,
        request_id: Optional[str] = None,
        retry_after: Optional[float] = None,
        credit_balance: Optional[Balance] = None,
        record_range: Optional[RecordRange] = None,
        rate_limit: Optional[RateLimit] = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.fields = dict(fields or {})
        self.request_id = request_id
        self.retry_after = retry_after
        self.credit_balance = credit_balance
        self.record_range = record_range
        self.rate_limit = rate_limit if rate_limit is not None else {"limit": None, "remaining": None, "reset": None}
        self.body = body

    def __str__(self) -> str:
        s = f"valuator: {self.status} {self.code}: {self.message}"
        if self.field:
            s += f" (field {self.field})"
        if self.retry_after is not None:
            s += f" (retry after {self.retry_after:g}s)"
        if self.request_id:
            s += f" [request {self.request_id}]"
        return s

    def __repr__(self) -> str:
        return f"ValuatorError(status={self.status!r}, code={self.code!r}, message={self.message!r})"

    def __reduce__(self) -> Any:
        # Exceptions pickle as cls(*args); this one has keyword attributes, so it is rebuilt from its __dict__
        # (multiprocessing sends exceptions between processes by pickling them).
        return (_rebuild, (type(self), dict(self.__dict__)))

    @property
    def is_not_found(self) -> bool:
        """404: not on record (``property_not_found``), no records (``market_not_found``), no such job, or an
        address outside the markets loaded (``area_not_covered``)."""
        return self.status == 404

    @property
    def is_rate_limited(self) -> bool:
        """429: wait ``retry_after`` seconds."""
        return self.status == 429

    @property
    def is_payment_required(self) -> bool:
        """402: out of credits, or past the overage limit (``credit_balance`` says which)."""
        return self.status == 402


def _rebuild(cls: Type[ValuatorError], state: Dict[str, Any]) -> ValuatorError:
    e = cls.__new__(cls)
    Exception.__init__(e, state.get("message", ""))
    e.__dict__.update(state)
    return e


def _header_int(headers: Mapping[str, str], name: str) -> Optional[int]:
    v = headers.get(name)
    if v is None:
        return None
    try:
        return int(v.strip())
    except ValueError:
        return None


def retry_after_header(headers: Mapping[str, str], now: Optional[float] = None) -> Optional[float]:
    """Retry-After in seconds: delta-seconds or an HTTP date (a date in the past is 0); None when missing or bad.
    headers has lower-case names."""
    v = headers.get("retry-after")
    if v is None:
        return None
    v = v.strip()
    if not v:
        return None
    try:
        return float(max(int(v), 0))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(v)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def error_from_answer(status: int, headers: Mapping[str, str], raw: bytes) -> ValuatorError:
    """The ValuatorError of a non-2xx answer: {"error", "code", "requestId", "field", "fields", "retryAfter",
    "creditBalance", "recordRange", ...} and the headers (lower-case names)."""
    text = raw.decode("utf-8", errors="replace")
    body: Any = text
    b: Dict[str, Any] = {}
    try:
        decoded = json.loads(text) if text.strip() else None
    except ValueError:
        decoded = None
    if isinstance(decoded, dict):
        body = b = decoded

    def s(key: str) -> Optional[str]:
        v = b.get(key)
        return v if isinstance(v, str) and v else None

    code = s("code") or f"http_{status}"
    message = s("error")
    if message is None:
        message = text.strip()
        if not message or len(message) > 200:
            message = _REASONS.get(status, f"HTTP {status}")
    fields = b.get("fields")
    retry_after = retry_after_header(headers)
    if retry_after is None and isinstance(b.get("retryAfter"), (int, float)) and b["retryAfter"] > 0:
        retry_after = float(b["retryAfter"])
    balance = b.get("creditBalance")
    record_range = b.get("recordRange")
    return ValuatorError(
        status,
        code,
        message,
        field=s("field"),
        fields={str(k): str(v) for k, v in fields.items()} if isinstance(fields, dict) else None,
        request_id=s("requestId") or headers.get("x-request-id"),
        retry_after=retry_after,
        credit_balance=cast(Balance, balance) if isinstance(balance, dict) else None,
        record_range=cast(RecordRange, record_range) if isinstance(record_range, dict) else None,
        rate_limit={
            "limit": _header_int(headers, "x-ratelimit-limit"),
            "remaining": _header_int(headers, "x-ratelimit-remaining"),
            "reset": _header_int(headers, "x-ratelimit-reset"),
        },
        body=body,
    )


_REASONS = {
    400: "Bad Request",
    401: "Unauthorized",
    402: "Payment Required",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    409: "Conflict",
    410: "Gone",
    413: "Payload Too Large",
    415: "Unsupported Media Type",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}
