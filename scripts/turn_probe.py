#!/usr/bin/env python3
"""What each junction costs to cross, in OSRM and in Wayfinder, on the same random routes.

    scripts/turn_probe.py --osrm http://127.0.0.1:5000 --wayfinder http://127.0.0.1:5001 [--mode driving]
        [--pairs 100] [--seed 1] [--bounds west,south,east,north] [--show 20] [--threshold 0.15] [--json OUT]

Both servers must serve the same extract; Wayfinder is asked with compat=osrm. For each random pair that both
engines route along the same line (distances within 0.5 m), every junction OSRM's steps list (`intersections`)
is crossed again on its own: a route from the middle of the segment before it to the middle of the one after,
radius 1 m, on both engines. A junction's cost is that route's duration less the sum of its annotations (both
engines leave turn and junction costs out of the per-segment durations). Prints how many passages differ by
more than --threshold seconds (0.15: more than a tenth), their total, and with --show the largest, with the
lengths of the first segments on each side (OSRM reads a turn's angle further along a road whose first segment
is short). Standard library only.
"""
import argparse
import json
import math
import random
import urllib.error
import urllib.request


def get(base, path):
    try:
        with urllib.request.urlopen(base + path, timeout=60) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        return json.loads(e.read() or b"{}")


def metres(a, b):
    dx = (b[0] - a[0]) * math.cos(math.radians(a[1])) * 111320
    return math.hypot(dx, (b[1] - a[1]) * 111320)


def junction_cost(base, mode, before, at, after, extra=""):
    p = [(before[0] + at[0]) / 2, (before[1] + at[1]) / 2]
    q = [(at[0] + after[0]) / 2, (at[1] + after[1]) / 2]
    body = get(base, f"/route/v1/{mode}/{p[0]:.6f},{p[1]:.6f};{q[0]:.6f},{q[1]:.6f}"
                     f"?overview=false&radiuses=1;1&annotations=duration,distance{extra}")
    if body.get("code") != "Ok":
        return None
    leg = body["routes"][0]["legs"][0]
    return leg["duration"] - sum(leg["annotation"]["duration"]), leg["distance"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--osrm", required=True)
    ap.add_argument("--wayfinder", required=True)
    ap.add_argument("--mode", default="driving")
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bounds", help="west,south,east,north (default: around the first nearest answer)")
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--threshold", type=float, default=0.15)
    ap.add_argument("--json")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    west, south, east, north = map(float, args.bounds.split(",")) if args.bounds else (-8.68, 41.10, -8.50, 41.25)
    passages, routes = [], 0
    for _ in range(args.pairs):
        a = (rng.uniform(west, east), rng.uniform(south, north))
        b = (rng.uniform(west, east), rng.uniform(south, north))
        path = f"/route/v1/{args.mode}/{a[0]:.6f},{a[1]:.6f};{b[0]:.6f},{b[1]:.6f}?overview=full&geometries=geojson&steps=true"
        o, w = get(args.osrm, path), get(args.wayfinder, path + "&compat=osrm")
        if o.get("code") != "Ok" or w.get("code") != "Ok":
            continue
        if abs(o["routes"][0]["distance"] - w["routes"][0]["distance"]) > 0.5:
            continue
        routes += 1
        line = o["routes"][0]["geometry"]["coordinates"]
        index = {(round(c[0], 6), round(c[1], 6)): i for i, c in enumerate(line)}
        for step in o["routes"][0]["legs"][0]["steps"]:
            for x in step["intersections"]:
                i = index.get((round(x["location"][0], 6), round(x["location"][1], 6)))
                if i is None or i == 0 or i == len(line) - 1 or len(x["bearings"]) < 3:
                    continue
                ours = junction_cost(args.wayfinder, args.mode, line[i - 1], line[i], line[i + 1], "&compat=osrm")
                theirs = junction_cost(args.osrm, args.mode, line[i - 1], line[i], line[i + 1])
                if ours is None or theirs is None or abs(ours[1] - theirs[1]) > 0.5:
                    continue
                passages.append({"location": line[i], "osrm": round(theirs[0], 2), "wayfinder": round(ours[0], 2),
                                 "first_segments_m": [round(metres(line[i - 1], line[i]), 1),
                                                      round(metres(line[i], line[i + 1]), 1)]})
    differ = [p for p in passages if abs(p["osrm"] - p["wayfinder"]) > args.threshold]
    short = [p for p in differ if min(p["first_segments_m"]) < 12]
    print(f"{routes} routes on the same line; {len(passages)} junction passages; {len(differ)} differ by more "
          f"than {args.threshold} s ({len(short)} with a first segment under 12 m); sum of differences (wayfinder - osrm) "
          f"{sum(p['wayfinder'] - p['osrm'] for p in passages):+.1f} s")
    for p in sorted(differ, key=lambda p: -abs(p["osrm"] - p["wayfinder"]))[:args.show]:
        print(f"  {p['location'][1]:.6f},{p['location'][0]:.6f}: OSRM {p['osrm']:.1f} s, Wayfinder "
              f"{p['wayfinder']:.1f} s, first segments {p['first_segments_m']} m")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"routes": routes, "passages": passages}, out)


if __name__ == "__main__":
    main()
