"""The client against the real server (conftest.py starts it): a valuation and its errors, a batch uploaded, waited
for and downloaded, a person lookup, market statistics, a 402 and a 429, as sdk/go/sdk_test.go tests them."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, Callable, List

import pytest

import valuator
from conftest import Server

HOME = dict(address="5873 River Dr N", city="Seattle", state="WA", zip="98103")
MARGARET = dict(name="Margaret Larkspur", street_line_1="5873 River Dr N", city="Seattle", state_code="WA",
                postal_code="98103")


def raises(call: Callable[[], Any]) -> valuator.ValuatorError:
    with pytest.raises(valuator.ValuatorError) as info:
        call()
    return info.value


@pytest.fixture(scope="module")
def client(server: Server) -> valuator.Client:
    return valuator.Client(server.base_url, server.create_key("sdk-py"))


def test_valuate(client: valuator.Client) -> None:
    v = client.valuate(**HOME)
    assert v["valuation"]["estimatedValue"] > 0
    assert v["property"]["address"].upper() == "5873 RIVER DR N"
    assert v["property"]["zip"] == "98103"
    assert v["property"]["isDemo"] is True
    # Confidence is 1 - FSD; a fresh demo market needs no warning.
    assert abs(v["valuation"]["confidence"] - (1 - v["valuation"]["fsd"])) <= 0.0005, v["valuation"]
    assert v["valuation"]["warnings"] == []
    assert 0 < v["valuation"]["withinTenPercent"] < 1
    assert v["valuation"]["low"] <= v["valuation"]["estimatedValue"] <= v["valuation"]["high"]
    assert v["meta"]["creditsUsed"] == 1


def test_valuate_one_line_address(client: valuator.Client) -> None:
    v = client.valuate("5873 River Dr N, Seattle, WA 98103")
    assert v["property"]["zip"] == "98103" and v["valuation"]["estimatedValue"] > 0


def test_valuate_outside_records(client: valuator.Client) -> None:
    # A home far larger than any on record near it: a free 422 naming the fact and the range the records hold.
    e = raises(lambda: client.valuate("1 Nowhere Ln", "Seattle", "WA", "98103", propertyType="Single Family",
                                      squareFeet=100000))
    assert (e.status, e.code, e.field) == (422, "outside_records", "squareFeet"), e
    assert e.record_range is not None and e.record_range["area"] == "98103"
    assert 0 < e.record_range["max"] < 100000


def test_valuate_not_found(client: valuator.Client) -> None:
    e = raises(lambda: client.valuate("1 Nowhere Ln", "Seattle", "WA", "98103"))
    assert (e.status, e.code) == (404, "property_not_found"), e
    assert e.is_not_found and e.message and e.request_id
    assert isinstance(e.fields, dict)
    assert str(e).startswith("valuator: 404 property_not_found: ")


def test_valuate_bad_input(client: valuator.Client) -> None:
    e = raises(lambda: client.valuate(**{**HOME, "zip": "nope"}))
    assert (e.status, e.field) == (400, "zip"), e
    assert e.code and "zip" in e.fields


def test_bad_key(server: Server) -> None:
    e = raises(lambda: valuator.Client(server.base_url, "not-a-key").valuate(**HOME))
    assert e.status == 401 and e.code, e


def test_batch(client: valuator.Client, tmp_path: Path) -> None:
    csv = b"address,city,state,zip\n5873 River Dr N,Seattle,WA,98103\n1 Nowhere Ln,Seattle,WA,98103\n"
    job = client.upload_batch(csv, "homes.csv", idempotency_key="sdk-py-test-1")
    assert job["jobId"] > 0 and job["status"] in valuator.DONE_STATUSES + ("pending", "processing"), job
    # The same Idempotency-Key answers the first job.
    again = client.upload_batch(io.BytesIO(csv), "homes.csv", idempotency_key="sdk-py-test-1")
    assert again["jobId"] == job["jobId"]

    done = client.wait_batch(job["jobId"], interval=0.25, timeout=120)
    assert done["status"] == "completed", done.get("statusMessage")
    assert done["progress"] == {"total": 2, "processed": 2, "successful": 1, "failed": 1}
    assert len(done["results"]) == 2
    ok = [r for r in done["results"] if r["status"] == "success"]
    assert len(ok) == 1 and (ok[0]["estimatedValue"] or 0) > 0

    out = tmp_path / "homes-valued.csv"
    file = client.download_batch(job["jobId"], path=out)
    lines = file.decode().strip().split("\n")
    assert len(lines) == 3 and "5873 RIVER DR N" in file.decode().upper(), file
    assert out.read_bytes() == file

    page = client.batch_status(job["jobId"], page=2, limit=1)
    assert page["pagination"]["page"] == 2 and len(page["results"]) == 1

    e = raises(lambda: client.batch_status(999999999))
    assert e.status == 404, e


def test_batch_from_path(client: valuator.Client, tmp_path: Path) -> None:
    path = tmp_path / "one.csv"
    path.write_text("address\n5873 River Dr N, Seattle, WA 98103\n")
    job = client.upload_batch(path)
    done = client.wait_batch(job["jobId"], interval=0.25, timeout=120)
    assert done["status"] == "completed" and done["progress"]["successful"] == 1, done


def test_find_person(client: valuator.Client) -> None:
    # The demo directory's resident of 5873 River Dr N (person.DemoResidents with seed 1).
    p = client.find_person(**MARGARET)
    assert p["name"] == "Margaret Larkspur"
    e = raises(lambda: client.find_person("Nobody Atall", street_line_1="1 Nowhere Ln", city="Seattle",
                                          state_code="WA"))
    assert e.status == 404, e


def test_market(client: valuator.Client) -> None:
    m = client.market("98103", history_months=12)
    assert m["zip"] == "98103" and len(m["history"]) == 12 and len(m["priceIndex"]) == 12
    sales = m["sales"]
    assert sales["count"] >= 5 and sales["min"] <= sales["median"] <= sales["max"], sales
    assert m["values"]["count"] >= 5 and m["values"]["p25"] <= m["values"]["p75"], m["values"]

    cmp = client.compare_markets(["98103", "12345"])
    assert len(cmp["markets"]) == 1 and cmp["notFound"] == ["12345"]
    assert cmp["markets"][0]["zip"] == "98103"

    e = raises(lambda: client.market("12345"))
    assert (e.status, e.code) == (404, "market_not_found"), e
    e = raises(lambda: client.market("981"))
    assert (e.status, e.field) == (400, "zip"), e


def test_out_of_credits(server: Server) -> None:
    # A 402 carries the account's balance, the same figures the dashboard shows.
    c = valuator.Client(server.base_url, server.new_account_key("sdk-py-broke"))
    # A new Free account's 100 credits buy 20 person lookups at 5 credits.
    for _ in range(20):
        c.find_person(**MARGARET)
    e = raises(lambda: c.find_person(**MARGARET))
    assert (e.status, e.code) == (402, "insufficient_credits") and e.is_payment_required, e
    assert e.credit_balance is not None
    b = e.credit_balance
    assert (b["credits"], b["state"], b["planType"]) == (0, "empty", "free"), b


def test_rate_limited(server: Server) -> None:
    key = server.create_key("sdk-py-limited", rate_limit=1)

    # Without retries the second call of the minute is the server's 429, with its Retry-After.
    c = valuator.Client(server.base_url, key, max_retries=0)
    c.valuate(**HOME)
    e = raises(lambda: c.valuate(**HOME))
    assert (e.status, e.code) == (429, "rate_limited") and e.is_rate_limited, e
    assert e.retry_after is not None and e.retry_after > 0
    assert e.rate_limit["remaining"] == 0 and e.rate_limit["limit"] == 1

    # With retries whose wait is capped far below Retry-After, the budget is still spent: the retries are made
    # and the last 429 is raised.
    c = valuator.Client(server.base_url, key, max_retries=2, max_retry_delay=0.02)
    waits: List[float] = []
    sleep = c._sleep

    def recorded(seconds: float) -> None:
        waits.append(seconds)
        sleep(seconds)

    c._sleep = recorded
    e = raises(lambda: c.valuate(**HOME))
    assert e.status == 429 and waits == [0.02, 0.02], (e, waits)
