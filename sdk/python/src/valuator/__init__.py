"""A Python client of Valuator's public API: valuations, market statistics, person lookups and batch jobs.

    import valuator

    client = valuator.Client("https://valuator.example.com", api_key)
    home = client.valuate("5873 River Dr N", "Seattle", "WA", "98103")
    print(home["valuation"]["estimatedValue"])

Standard library only. Every method returns the answer's ``data`` as plain dicts and lists; every answer other
than 2xx raises :class:`ValuatorError`.
"""

from ._client import DONE_STATUSES, Client, PathOrFile
from ._errors import ValuatorError
from ._types import (
    Balance,
    BatchProgress,
    BatchResult,
    BatchStatus,
    CallMeta,
    Market,
    MarketComparison,
    Pagination,
    PersonAddress,
    PersonResult,
    PropertyValuation,
    RateLimit,
    RecordRange,
    ValuationFigures,
    ValuationProperty,
)
from ._version import API_VERSION, __version__

__all__ = [
    "Client",
    "ValuatorError",
    "DONE_STATUSES",
    "PathOrFile",
    "API_VERSION",
    "__version__",
    "Balance",
    "BatchProgress",
    "BatchResult",
    "BatchStatus",
    "CallMeta",
    "Market",
    "MarketComparison",
    "Pagination",
    "PersonAddress",
    "PersonResult",
    "PropertyValuation",
    "RateLimit",
    "RecordRange",
    "ValuationFigures",
    "ValuationProperty",
]
