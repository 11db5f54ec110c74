"""How the SQLite rows encode times: the text order is the time order, and an instant is kept
exactly whatever zone it was given in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from turngraph.store.sqlite_rows import from_db, to_db


def test_the_repeated_hour_when_clocks_go_back_keeps_both_instants() -> None:
    # 01:30 happens twice in New York on 2024-11-03; the two datetimes compare (and hash)
    # equal, but the second one is an hour later.
    first = datetime(2024, 11, 3, 1, 30, tzinfo=ZoneInfo("America/New_York"))
    second = first.replace(fold=1)
    assert first == second
    stored = [to_db(first), to_db(second), to_db(first)]
    assert stored[0] == stored[2]
    assert from_db(stored[1]) - from_db(stored[0]) == timedelta(hours=1)
    assert from_db(stored[0]) == datetime(2024, 11, 3, 5, 30, tzinfo=UTC)


def test_text_order_is_time_order_across_zones_and_years() -> None:
    times = [
        datetime(999, 1, 1, tzinfo=UTC),
        datetime(2024, 1, 1, 12, tzinfo=ZoneInfo("Asia/Tokyo")),  # 03:00 UTC
        datetime(2024, 1, 1, 4, tzinfo=UTC),
        datetime(2024, 1, 1, 0, 30, tzinfo=ZoneInfo("America/New_York")),  # 05:30 UTC
    ]
    assert sorted(times, key=to_db) == sorted(times)
    assert [from_db(to_db(t)) for t in times] == times
