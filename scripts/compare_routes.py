#!/usr/bin/env python3
"""Compares the routes of two Wayfinder builds (or two graphs) on the same random pairs.

    scripts/compare_routes.py --old BINARY GRAPH --new BINARY GRAPH [--pairs 200] [--seed 1] [--mode driving]

Draws pairs of random points in the new graph's bounds (a point with no road within 5 km is drawn again), routes
each with both, and prints the median relative change in length and duration, the pairs that moved most, and how
many pairs only one of them could route; and the steps per route and routes with a step under 10 m of each. Used to check that a profile change keeps routes as they were except
where it means to change them.
"""
import argparse
import json
import random
import statistics
import subprocess
import sys


def route(binary, graph, mode, a, b):
    result = subprocess.run([binary, "route", "--graph", graph, "--mode", mode, "--format", "json",
                             f"{a[0]:.6f},{a[1]:.6f}", f"{b[0]:.6f},{b[1]:.6f}"], capture_output=True, text=True)
    try:
        body = json.loads(result.stdout)
    except json.JSONDecodeError:
        return None, result.stderr.strip()
    if body.get("code") != "Ok":
        return None, body.get("code")
    r = body["routes"][0]
    steps = [s for leg in r["legs"] for s in leg.get("steps", [])]
    short = sum(1 for s in steps if s["maneuver"]["type"] not in ("depart", "arrive") and s["distance"] < 10)
    return (r["distance"], r["duration"], r["legs"][0].get("summary", ""), len(steps), short), None


def bounds(binary, graph):
    info = subprocess.run([binary, "info", "--graph", graph], capture_output=True, text=True, check=True).stdout
    for line in info.splitlines():
        if "bounds" in line:
            part = line.split("bounds")[1].split(",", 1)
            south, rest = part[0].strip(), part[1]
            west, rest = rest.split("–")[0].strip(), rest.split("–")[1]
            north, east = rest.split(",")[0].strip(), rest.split(",")[1].split()[0]
            return float(south), float(west), float(north), float(east)
    sys.exit("no bounds in wayfinder info")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", nargs=2, metavar=("BINARY", "GRAPH"), required=True)
    parser.add_argument("--new", nargs=2, metavar=("BINARY", "GRAPH"), required=True)
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mode", default="driving")
    parser.add_argument("--show", type=int, default=10, help="how many of the pairs that moved most to list")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    south, west, north, east = bounds(*args.new)
    rows, only_old, only_new, neither = [], [], [], 0
    attempts = 0
    while len(rows) + len(only_old) + len(only_new) < args.pairs and attempts < args.pairs * 20:
        attempts += 1
        a = (rng.uniform(south, north), rng.uniform(west, east))
        b = (rng.uniform(south, north), rng.uniform(west, east))
        old, old_error = route(*args.old, args.mode, a, b)
        new, new_error = route(*args.new, args.mode, a, b)
        if old_error == "NoSegment" or new_error == "NoSegment":
            continue  # a point out at sea: drawn again, as the benchmarks do
        if old and new:
            rows.append((a, b, old, new))
        elif old:
            only_old.append((a, b, old, new_error))
        elif new:
            only_new.append((a, b, new, old_error))
        else:
            neither += 1
    change = [abs(n[0] - o[0]) / o[0] for _, _, o, n in rows if o[0] > 0]
    duration = [(n[1] - o[1]) / o[1] for _, _, o, n in rows if o[1] > 0]
    print(f"{len(rows)} pairs routed by both ({args.mode}); {len(only_old)} only by the old, {len(only_new)} only by the "
          f"new, {neither} by neither")
    print(f"length: median change {100 * statistics.median(change):.2f} %, mean {100 * statistics.mean(change):.2f} %, "
          f"{sum(1 for c in change if c < 0.001)} unchanged (< 0.1 %), {sum(1 for c in change if c > 0.05)} over 5 %")
    print(f"duration: median change {100 * statistics.median(duration):+.2f} %")
    old_steps, new_steps = [o[3] for _, _, o, _ in rows], [n[3] for _, _, _, n in rows]
    print(f"steps per route: median {statistics.median(old_steps):g} → {statistics.median(new_steps):g} "
          f"({100 * (statistics.median(new_steps) / statistics.median(old_steps) - 1):+.1f} %), mean "
          f"{statistics.mean(old_steps):.1f} → {statistics.mean(new_steps):.1f}; routes with a step under 10 m: "
          f"{sum(1 for _, _, o, _ in rows if o[4])} → {sum(1 for _, _, _, n in rows if n[4])}")
    rows.sort(key=lambda r: -abs(r[3][0] - r[2][0]) / max(1, r[2][0]))
    for a, b, o, n in rows[:args.show]:
        print(f"  {a[0]:.5f},{a[1]:.5f} → {b[0]:.5f},{b[1]:.5f}: {o[0]:.0f} m {o[1]:.0f} s via {o[2]!r} → "
              f"{n[0]:.0f} m {n[1]:.0f} s via {n[2]!r}")
    for a, b, r, why in (only_old + only_new)[:args.show]:
        print(f"  {a[0]:.5f},{a[1]:.5f} → {b[0]:.5f},{b[1]:.5f}: one side {r[0]:.0f} m, the other {why}")


if __name__ == "__main__":
    main()
