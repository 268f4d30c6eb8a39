"""The duel against the peer, one run after the other: boardgame.io's own bench and bench.duels
take turns, `--pairs` times, on the same machine in the same minutes, and the ratios of each
pair are printed, then their medians. Absolute figures drift from minute to minute on a shared
machine; a ratio of two runs side by side drifts less, and the median of several less again.

The peer is the benchmark folder handed to the project (boardgame.io serving the same duel),
installed where `--peer` points (`npm ci` in a copy of it). Its figures are taken from its
`SUMMARY_JSON` line; CPU a duel is the server's cores over its duels a second, for both sides
(ours: the whole process tree, the door and every worker).

    .venv/bin/python -m bench.versus --peer /tmp/peer [--pairs 3] [--seconds 20] [--phones 200]
"""

import argparse
import statistics
import subprocess
from pathlib import Path
from typing import Any

import orjson

from bench.duels import Layout, measure
from bench.live import scratch

PORT = 18800  # the peer's, on loopback


def peer(folder: Path, phones: int, seconds: float) -> dict[str, Any]:
    """One run of the peer's own bench: its summary."""
    command = [
        *("node", "bench.js", "--storage", "memory", "--clients", str(phones)),
        *("--conn", "persistent", "--reps", "1", "--duration", str(round(seconds))),
        *("--warmup", "5", "--port", str(PORT)),
    ]
    run = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=True)
    line = next(x for x in run.stdout.splitlines() if x.startswith("SUMMARY_JSON "))
    summary: dict[str, Any] = orjson.loads(line.removeprefix("SUMMARY_JSON "))
    return {
        "duels_per_s": summary["duels_per_s"],
        "p99_ms": summary["p99_ms"],
        "cpu_ms": 1000 * summary["server_cpu_cores"] / summary["duels_per_s"],
    }


def ours(phones: int, seconds: float, folder: Path, n: int) -> dict[str, Any]:
    """One run of bench.duels, games of two, on a fresh SQLite file."""
    result = measure(Layout(phones, 2, 0, False), seconds, f"sqlite:///{folder / f'{n}.db'}")
    return {
        "duels_per_s": result["duels_per_s"],
        "p99_ms": result["p99_ms"],
        "cpu_ms": 1000 * result["server_cores"] / result["duels_per_s"],
    }


def row(them: dict[str, Any], us: dict[str, Any]) -> dict[str, float]:
    return {
        "duels": us["duels_per_s"] / them["duels_per_s"],
        "p99": us["p99_ms"] / them["p99_ms"],
        "cpu": us["cpu_ms"] / them["cpu_ms"],
    }


def side(figures: dict[str, Any]) -> str:
    return (
        f"{figures['duels_per_s']:7.1f} duels/s, p99 {figures['p99_ms']:5.1f} ms, "
        f"CPU a duel {figures['cpu_ms']:.3f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", type=Path, required=True, help="the peer bench, installed")
    parser.add_argument("--pairs", type=int, default=3, help="runs of each, taking turns")
    parser.add_argument("--seconds", type=float, default=20, help="measured, each run")
    parser.add_argument("--phones", type=int, default=200, help="duelling phones, in pairs")
    args = parser.parse_args()
    if not (args.peer / "node_modules").is_dir():
        parser.error(f"install the peer first: cd {args.peer} && npm ci")
    rows = []
    with scratch("versus-") as folder:
        for n in range(args.pairs):
            them = peer(args.peer, args.phones, args.seconds)
            print(f"pair {n + 1}  peer {side(them)}", flush=True)
            us = ours(args.phones, args.seconds, folder, n)
            rows.append(row(them, us))
            ratio = rows[-1]
            print(
                f"        ours {side(us)}   "
                f"ratios: duels/s {ratio['duels']:.2f}x, p99 {ratio['p99']:.2f}, "
                f"CPU a duel {ratio['cpu']:.2f}",
                flush=True,
            )
    median = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
    print(
        f"median of {len(rows)}: duels/s {median['duels']:.2f}x (to reach: >= 2), "
        f"p99 {median['p99']:.2f} (to reach: <= 1), "
        f"CPU a duel {median['cpu']:.2f} (to reach: <= 0.5)"
    )


if __name__ == "__main__":
    main()
