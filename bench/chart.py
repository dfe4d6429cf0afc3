"""Bar chart of the median rates (runs in .bench/peers, where matplotlib lives).

Usage: ``python -m bench.chart RESULTS.json|- OUT.png``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

COLORS = {
    "ours": "#1f77b4",
    "baseline": "#7f7f7f",
    "reactivex": "#d62728",
    "rxbp": "#ff7f0e",
    "aioreactive": "#9467bd",
}


def main() -> None:
    src, out = sys.argv[1], Path(sys.argv[2])
    results = json.loads(sys.stdin.read() if src == "-" else Path(src).read_text())
    rows = [r for r in results["rows"] if "rate_median" in r]
    names = [r["name"] + (" (subs)" if r["unit"] != "elements" else "") for r in rows]
    values = [r["rate_median"] for r in rows]
    fig, ax = plt.subplots(figsize=(9, 0.28 * len(rows) + 1.4))
    ax.barh(names, values, color=[COLORS.get(r["group"], "#333333") for r in rows])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("per second, median (log scale)")
    limit = next((r["rate_median"] for r in rows if r["name"] == "plain_loop"), None)
    if limit:
        ax.axvline(limit, color="black", linewidth=0.8, linestyle="--")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLORS.values()]
    ax.legend(handles, list(COLORS), loc="lower right", fontsize=8)
    m = results["machine"]
    ax.set_title(f"{m['cores']} cores, {m['cpu_model']}, Python {m['python']}", fontsize=9)
    ax.tick_params(axis="y", labelsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
