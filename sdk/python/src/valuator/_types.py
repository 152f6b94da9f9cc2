"""The answers' shapes, as TypedDicts of api/openapi.yaml's schemas.

At run time every answer is a plain dict (decoded JSON): these types only tell a type checker and an editor which
keys there are. The keys are the API's own (camelCase; snake_case for a person). Blocks that vary in shape or are
large (a market's sales and rents, a valuation's details and marketData, comparables) are typed Dict[str, Any];
api/openapi.yaml documents every key.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, TypedDict

__all__ = [
    "RateLimit",
    "RecordRange",
    "Balance",
    "ValuationProperty",
    "ValuationFigures",
    "CallMeta",
    "PropertyValuation",
    "Market",
    "MarketComparison",
    "PersonAddress",
    "PersonResult",
    "BatchProgress",
    "BatchResult",
    "Pagination",
    "BatchStatus",
]


class RateLimit(TypedDict):
    """The x-ratelimit-* headers of an answer; None when a header was missing."""

    limit: Optional[int]
    remaining: Optional[int]
    reset: Optional[int]


class RecordRange(TypedDict):
    """For a 422 outside_records: what the records of the home's area and type hold for the fact refused."""

    field: str
    min: float
    max: float
    homes: int
    area: str  # a ZIP code, a 3-digit ZIP area such as "981xx", or "our records"


class Balance(TypedDict):
    """What an account has left to spend (the body of a 402 carries it as creditBalance)."""

    planType: str  # free, basic, professional, enterprise
    credits: int
    overageCredits: int
    overageCents: int
    overageRateCents: int
    overageLimitCents: Optional[int]
    overageLeftCents: Optional[int]
    spendableCredits: Optional[int]
    state: str  # ok, low, overage, limit_reached, empty


class _ValuationPropertyRequired(TypedDict):
    address: str
    city: str
    state: str
    zip: str
    formattedAddress: str
    matchCode: str  # exact, unit_fallback, fuzzy, not_on_record
    isDemo: bool


class ValuationProperty(_ValuationPropertyRequired, total=False):
    """The home valued, as matched."""

    unit: Optional[str]
    latitude: Optional[float]
    longitude: Optional[float]
    county: Optional[str]


class _ValuationFiguresRequired(TypedDict):
    estimatedValue: int
    low: int
    high: int
    confidence: float
    confidenceLevel: str  # High, Medium, Low
    fsd: float
    withinTenPercent: float
    valuationDate: str
    lastUpdated: str
    warnings: List[str]
    evidence: List[Dict[str, Any]]
    path: str  # own_sale, record, unit, facts, type_and_size
    comparablesValue: Optional[int]
    drivers: Optional[Dict[str, Any]]


class ValuationFigures(_ValuationFiguresRequired, total=False):
    """The value, its 80% range (low, high) and how sure it is (confidence = 1 - fsd)."""

    pricePerSqFt: Optional[int]


class _CallMetaRequired(TypedDict):
    requestId: str
    timestamp: str
    responseTime: int
    creditsUsed: int
    creditsRemaining: int


class CallMeta(_CallMetaRequired, total=False):
    """The meta of a metered call: its request id, credits used and left."""

    dataSource: str


class _PropertyValuationRequired(TypedDict):
    property: ValuationProperty
    valuation: ValuationFigures
    details: Dict[str, Any]
    marketData: Dict[str, Any]
    meta: CallMeta


class PropertyValuation(_PropertyValuationRequired, total=False):
    """The ``data`` of GET /api/v1/property/valuation."""

    valueHistory: List[Dict[str, Any]]  # [{"month": "2021-12", "value": 812000}, ...], oldest first


class Market(TypedDict):
    """The ``data`` of GET /api/v1/markets: a ZIP code's market statistics.

    ``sales``, ``rents`` and ``values`` are either figures ({"count", "median", "mean", "min", "max", ...}) or,
    with fewer than 5 records, {"count", "omitted"} (the reason).
    """

    zip: str
    city: str
    state: str
    asOf: str
    isDemo: bool
    propertyType: Optional[str]
    sales: Dict[str, Any]
    rents: Dict[str, Any]
    values: Dict[str, Any]
    priceIndex: List[Dict[str, Any]]
    priceIndexArea: Optional[Dict[str, Any]]
    history: List[Dict[str, Any]]
    historyWindow: Dict[str, int]


class MarketComparison(TypedDict):
    """The ``data`` of GET /api/v1/markets/compare: the ZIP codes with records, and those without (not charged)."""

    markets: List[Market]
    notFound: List[str]


class PersonAddress(TypedDict, total=False):
    street_line_1: str
    street_line_2: str
    city: str
    state_code: str
    postal_code: str
    lat_long: Optional[Dict[str, float]]


class _PersonResultRequired(TypedDict):
    id: str
    name: str
    alternate_names: Optional[List[str]]
    current_addresses: Optional[List[PersonAddress]]
    phones: Optional[List[Dict[str, str]]]
    emails: Optional[List[str]]
    associated_people: Optional[List[Dict[str, str]]]
    match_score: float
    ambiguous: bool
    source: str  # directory, demo, whitepages


class PersonResult(_PersonResultRequired, total=False):
    """The ``data`` of GET /api/v1/person."""

    age_range: str
    gender: str
    found_at_address: Optional[PersonAddress]
    historical_addresses: Optional[List[PersonAddress]]


class BatchProgress(TypedDict):
    total: int
    processed: int
    successful: int
    failed: int


class _BatchResultRequired(TypedDict):
    line: int
    address: str
    fullAddress: str
    status: str  # success, failed, pending
    estimatedValue: Optional[int]
    pricePerSqFt: Optional[int]
    bedrooms: Optional[float]
    bathrooms: Optional[float]
    squareFeet: Optional[int]
    yearBuilt: Optional[int]
    propertyType: Optional[str]
    rentEstimate: Optional[int]
    lotSize: Optional[int]
    imageUrl: Optional[str]
    error: Optional[str]


class BatchResult(_BatchResultRequired, total=False):
    """One row of a batch job, in file order."""

    reason: Optional[str]  # not_found, area_not_covered, invalid, too_uncertain, outside_records
    valueLow: Optional[int]
    valueHigh: Optional[int]
    confidence: Optional[float]
    confidenceLevel: Optional[str]
    fsd: Optional[float]
    withinTenPercent: Optional[float]
    valuationDate: Optional[str]
    warning: Optional[str]
    isDemo: Optional[bool]
    matchCode: Optional[str]


class Pagination(TypedDict):
    page: int
    limit: int
    total: int
    totalPages: int
    hasPreviousPage: bool
    hasNextPage: bool


class _BatchStatusRequired(TypedDict):
    jobId: int
    status: str  # pending, processing, completed, failed, cancelled
    progress: BatchProgress
    results: List[BatchResult]
    pagination: Pagination
    downloadUrl: str


class BatchStatus(_BatchStatusRequired, total=False):
    """A batch job's status and one page of its rows (the answer of the upload and of GET /api/batch/status)."""

    statusMessage: Optional[str]
    webhookSecret: str  # only in the answer to an upload with a webhookUrl
