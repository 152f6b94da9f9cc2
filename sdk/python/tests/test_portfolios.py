"""Portfolios through the client against the real server (conftest.py starts it): created with a home valued and
one the records do not have, read back with its totals, a home added and removed, its alerts read (none before a
month has passed), another account's portfolio unreachable, bad input naming the field, deleted."""

from __future__ import annotations

from typing import Any, Callable

import pytest

import valuator
from conftest import Server

HOME = dict(address="5873 River Dr N", city="Seattle", state="WA", zip="98103")
NOWHERE = dict(address="1 Nowhere Ln", city="Seattle", state="WA", zip="98103")
OTHER = dict(address="7006 Maple Road", city="Seattle", state="WA", zip="98103")


def raises(call: Callable[[], Any]) -> valuator.ValuatorError:
    with pytest.raises(valuator.ValuatorError) as info:
        call()
    return info.value


def test_portfolio_lifecycle(server: Server) -> None:
    c = valuator.Client(server.base_url, server.new_account_key("sdk-py-portfolio"))
    created = c.create_portfolio("Seattle rentals", [HOME, NOWHERE, HOME], alert_threshold=5)
    pid = created["id"]
    assert created["name"] == "Seattle rentals" and created["status"] == "active"
    results = created["results"]
    # The home on record is valued and charged; the one the records lack and the repeat are reported, free.
    assert [r["status"] for r in results] == ["added", "failed", "failed"], results
    assert [r["creditsUsed"] for r in results] == [1, 0, 0]
    assert results[1]["code"] == "property_not_found" and results[2]["code"] == "duplicate_property", results

    detail = c.portfolio(pid)
    assert detail["homeCount"] == 1 and len(detail["homes"]) == 1
    assert detail["totals"]["valuedHomes"] == 1 and detail["totals"]["value"] == results[0]["value"] > 0
    assert detail["history"] and detail["history"][-1]["value"] == detail["totals"]["value"]

    added = c.add_portfolio_properties(pid, [OTHER])
    assert [r["status"] for r in added["results"]] == ["added"], added
    assert c.portfolio(pid)["homeCount"] == 2
    assert c.remove_portfolio_properties(pid, [added["results"][0]["homeId"]]) == 1
    assert c.portfolio(pid)["homeCount"] == 1

    changed = c.update_portfolio(pid, alert_threshold=2.5)
    assert changed["alertThreshold"] == 2.5 and changed["name"] == "Seattle rentals", changed
    changed = c.update_portfolio(pid, name="Rentals", alert_threshold=None)
    assert changed["alertThreshold"] is None and changed["name"] == "Rentals", changed
    e = raises(lambda: c.update_portfolio(pid, alert_threshold=500))
    assert e.status == 400 and e.field == "alertThreshold", e

    listed = c.portfolios()
    assert [p["id"] for p in listed["data"]] == [pid] and listed["pagination"]["total"] == 1

    # Another account sees nothing of it, and cannot change it.
    stranger = valuator.Client(server.base_url, server.new_account_key("sdk-py-stranger"))
    for call in (lambda: stranger.portfolio(pid), lambda: stranger.add_portfolio_properties(pid, [OTHER]),
                 lambda: stranger.update_portfolio(pid, name="Mine"), lambda: stranger.delete_portfolio(pid)):
        e = raises(call)
        assert e.status == 404 and e.is_not_found, e
    assert stranger.portfolios()["data"] == []

    c.delete_portfolio(pid)
    assert raises(lambda: c.portfolio(pid)).status == 404


def test_portfolio_bad_input(server: Server) -> None:
    c = valuator.Client(server.base_url, server.new_account_key("sdk-py-portfolio-bad"))
    e = raises(lambda: c.create_portfolio("", [HOME]))
    assert (e.status, e.field) == (400, "name"), e
    e = raises(lambda: c.create_portfolio("Bad threshold", [HOME], alert_threshold=0))
    assert (e.status, e.field) == (400, "alertThreshold"), e
    e = raises(lambda: c.create_portfolio("Bad home", [HOME, dict(address="", city="Seattle", state="WA", zip="98103")]))
    assert e.status == 400 and e.field is not None and e.field.startswith("properties[1]"), e
    # Ids are checked before anything is sent.
    with pytest.raises(TypeError):
        c.portfolio("1")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        c.delete_portfolio(0)


def test_portfolio_alerts(server: Server) -> None:
    c = valuator.Client(server.base_url, server.new_account_key("sdk-py-portfolio-alerts"))
    pid = c.create_portfolio("Watched", [HOME], alert_threshold=0.1)["id"]
    # A new portfolio has sent nothing: its first alert comes with next month's revaluation. (The server's clock
    # is shared by every test of the session, so no month is made to pass here; internal/server's
    # TestPortfolioAlerts and internal/portfolio's TestPortfolioAlertsAreListedNewestFirst read alerts that were sent.)
    alerts = c.portfolio_alerts(pid)
    assert alerts["data"] == [], alerts
    assert alerts["pagination"]["total"] == 0 and alerts["pagination"]["limit"] == 12, alerts
    page = c.portfolio_alerts(pid, page=1_000_000, limit=1000)
    assert page["data"] == [] and page["pagination"]["page"] == 1_000_000, page

    for kwargs, field in ((dict(page=0), "page"), (dict(limit=1001), "limit")):
        e = raises(lambda: c.portfolio_alerts(pid, **kwargs))
        assert (e.status, e.field) == (400, field), e
    stranger = valuator.Client(server.base_url, server.new_account_key("sdk-py-alerts-stranger"))
    e = raises(lambda: stranger.portfolio_alerts(pid))
    assert e.status == 404 and e.code == "portfolio_not_found", e
    with pytest.raises(ValueError):
        c.portfolio_alerts(0)
