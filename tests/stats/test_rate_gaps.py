"""Stretches without records are gaps (no data), never a rate of zero; many changes go to a table."""

import numpy as np
import pandas as pd
import pytest

from relmodel.stats.rates.changepoint import rate_changes

DAY = 24.0


def _gap_log():
    # Two a day (at 01:00 and 13:00) on days 0-29 and 70-99, nothing in between: 120 interruptions
    # over 100 days, a mean interarrival of 100 * 24 / 120 = 20 h (hand count).
    first = np.arange(0, 30 * DAY, 12.0) + 1
    return np.concatenate([first, first + 70 * DAY])


def test_a_stretch_without_records_is_a_gap_not_a_zero_rate():
    rc = rate_changes(_gap_log(), window=(0, 100 * DAY), per="job")
    assert rc.mean_interarrival_h == pytest.approx(20.0)
    # hand count: the last record before the gap is day 29 at 13:00 (h 709), the next day 70 at 01:00 (h 1681);
    # 972 h > 10 x 20 h.  No other stretch is longer than 12 h.
    assert rc.gaps_h == ((709.0, 1681.0),)
    seg = rc.segments
    assert list(seg["gap"]) == [False, True, False]
    assert seg["rate_per_h"].isna().tolist() == [False, True, False]
    assert not (rc.to_frame().iloc[:, 3] == 0).any()  # no segment shows a rate of zero
    # the rates beside the gap: 60 in 30 days, 2 a day each (hand count)
    assert rc.to_frame().iloc[[0, 2], 3].tolist() == pytest.approx([2.0, 2.0])
    text = rc.text()
    assert "no records" in text and "not a rate of zero" in text
    assert "to 0.00" not in text and "went down" not in text
    assert "resume after the gap at 2.00 per day (2.00 before it)" in text
    assert rc.table()["no data (gap)"].tolist() == ["no", "yes", "no"]


def test_no_gap_when_records_are_regular():
    t = np.arange(0, 100 * DAY, 6.0) + 0.5  # every 6 h: mean interarrival 6 h, longest stretch 6 h
    rc = rate_changes(t, window=(0, 100 * DAY), per="job")
    assert rc.gaps_h == ()
    assert not rc.segments["gap"].any()
    assert "no records" not in rc.text()


@pytest.mark.parametrize("times, window, mean_h, gaps", [
    # events at 0..9 h and 104 h in 110 h: 11 events, mean 10 h; longest stretch 9 -> 104 = 95 h < 100 h
    (list(range(10)) + [104.0], 110.0, 10.0, ()),
    # events at 0..9 h in 100 h: mean 10 h; the tail 9 -> 100 = 91 h < 100 h
    (list(range(10)), 100.0, 10.0, ()),
    # events at 0..9 h and 999 h in 1,000 h: mean 1000 / 11 = 90.9 h; 9 -> 999 = 990 h > 909 h
    (list(range(10)) + [999.0], 1000.0, 1000 / 11, ((9.0, 999.0),)),
])
def test_the_gap_limit_is_ten_mean_interarrivals(times, window, mean_h, gaps):
    rc = rate_changes(np.array(times, float), window=(0, window), per="job", bin="1h")
    assert rc.mean_interarrival_h == pytest.approx(mean_h)
    assert rc.gaps_h == gaps


def test_a_real_log_with_dates_names_the_gap_dates():
    from relmodel.data import read_log
    days = list(range(0, 20)) + list(range(60, 80))  # one a day, 40 days missing in between
    df = pd.DataFrame({"time": [pd.Timestamp("2024-01-01") + pd.Timedelta(days=d) for d in days],
                       "host": [f"n{d % 4}" for d in days]})
    log = read_log(df, start="time", node="host")
    rc = rate_changes(log, per="job")
    # window Jan 1 to Mar 20 (79 days), 40 records: mean interarrival 79 * 24 / 40 = 47.4 h; the stretch
    # Jan 20 -> Mar 1 (41 days) is longer than 474 h
    assert rc.mean_interarrival_h == pytest.approx(79 * 24 / 40)
    assert rc.gaps_h == ((19 * DAY, 60 * DAY),)
    assert "From 2024-01-20 to 2024-03-01 there are no records" in rc.text()


def test_more_than_five_changes_are_a_table_not_a_paragraph():
    # seven blocks of 10 days alternating 1 and 8 a day (hand-made): six changes
    rng_rates = [1, 8, 1, 8, 1, 8, 1]
    t = np.concatenate([b * 10 * DAY + (np.arange(10 * r) + 0.5) * DAY / r for b, r in enumerate(rng_rates)])
    rc = rate_changes(t, window=(0, 70 * DAY), per="job")
    assert rc.n_changes == 6
    assert rc.change_h == pytest.approx(tuple(10 * DAY * k for k in range(1, 7)))
    text = rc.text()
    assert "changed 6 times" in text and "the table lists each segment" in text
    assert "went up" not in text and "went down" not in text  # no sentence per change
    html = rc._repr_html_()
    assert html.count("<tr") == 1 + 7  # header and the seven segments
    few = rate_changes(t[t < 40 * DAY], window=(0, 40 * DAY), per="job")
    assert few.n_changes == 3 and few.text().count("went") == 3  # up to five: one sentence each


def test_fleet_summary_page_shows_many_changes_as_a_table():
    from relmodel.data import read_log
    from relmodel.stats.rates.fleet_summary import fleet_summary
    rates = [1, 8, 1, 8, 1, 8, 1]
    t = np.concatenate([b * 10 * DAY + (np.arange(10 * r) + 0.5) * DAY / r for b, r in enumerate(rates)])
    df = pd.DataFrame({"start_h": t, "host": [f"n{i % 50}" for i in range(t.size)]})
    log = read_log(df, start="start_h", node="host", time_unit="h", window=(0, 70 * DAY))
    summary = fleet_summary(log)
    assert summary.changes.n_changes >= 6
    assert "no data (gap)" in summary._repr_html_()  # the change table is on the page
