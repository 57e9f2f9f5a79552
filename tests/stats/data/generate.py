"""Writes the small data sets the R-equality tests read (run once; the CSVs are committed).

    python tests/stats/data/generate.py

Each set is simulated with a fixed numpy seed; reference.R fits them with R's
survival and cmprsk packages and prints the numbers recorded in the tests.
"""

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


def fleet(seed=22, n=240):
    """Right-censored lives with ties (whole days), a numeric and a categorical covariate,
    strata, case weights, delayed entry and a cluster of 4 rows."""
    rng = np.random.default_rng(seed)
    age = rng.uniform(0, 5, n).round(2)
    rack = rng.choice(["r2", "r1", "r3"], n, p=[0.5, 0.3, 0.2])
    site = rng.choice(["east", "west"], n)
    hr = np.exp(0.3 * age + np.select([rack == "r1", rack == "r3"], [0.5, -0.4], 0.0))
    t = np.ceil(rng.exponential(60 / hr))
    c = np.ceil(rng.uniform(5, 150, n))
    stop = np.minimum(t, c)
    entry = np.where(rng.random(n) < 0.4, np.floor(stop * rng.uniform(0, 0.9, n)), 0.0)
    return pd.DataFrame({"stop": stop, "event": (t <= c).astype(int), "entry": entry, "age": age, "rack": rack,
                         "site": site, "w": rng.choice([1.0, 2.0, 0.5], n), "unit": np.arange(n) // 4,
                         "off": rng.normal(0, 0.2, n).round(3)})


def recurrent(seed=23, n_nodes=80, window=1500.0):
    """Counting-process spells of nodes that fail repeatedly, with a frailty per node."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_nodes):
        age, rack = rng.uniform(0, 4), rng.choice(["a", "b", "c"])
        rate = np.exp(0.2 * age + (0.4 if rack == "b" else 0.0)) * rng.gamma(2.0, 0.5) / 400
        start = 0.0
        while True:
            gap = rng.exponential(1 / rate)
            stop = min(start + gap, window)
            rows.append((f"n{i:02d}", round(start, 3), round(stop, 3), int(start + gap < window), round(age, 2), rack))
            if stop >= window:
                break
            start = round(stop + rng.uniform(1, 8), 3)
            if start >= window:
                break
    return pd.DataFrame(rows, columns=["node", "start", "stop", "event", "age_y", "rack"])


def competing(seed=24, n=40):
    """Competing causes in two or three groups, with ties and censoring (Gray's test)."""
    rng = np.random.default_rng(seed)
    group = rng.choice(["g1", "g2", "g3"], n)
    strat = rng.choice(["s1", "s2"], n)
    t1 = rng.exponential(np.where(group == "g1", 30, 60), n)
    t2 = rng.exponential(50, n)
    c = rng.uniform(10, 90, n)
    t = np.ceil(np.minimum.reduce([t1, t2, c]))
    cause = np.select([(t1 <= t2) & (t1 <= c), (t2 < t1) & (t2 <= c)], [1, 2], 0)
    return pd.DataFrame({"time": t, "cause": cause, "group": group, "strat": strat})


if __name__ == "__main__":
    fleet().to_csv(HERE / "cox_fleet.csv", index=False)
    recurrent().to_csv(HERE / "recurrent_fleet.csv", index=False)
    competing().to_csv(HERE / "competing_40.csv", index=False)
    competing(seed=25, n=300).to_csv(HERE / "competing_300.csv", index=False)
