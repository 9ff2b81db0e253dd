#!/usr/bin/env python3
"""Turn-by-turn maneuvers of Wayfinder against OSRM's own, on the same extract and random pairs.

    scripts/compare_osrm.py --extract FILE.osm.pbf [--mode driving|walking|cycling] [--pairs 200] [--seed 1]
        [--options compat=osrm] [--import-options '--compat osrm'] [--radius 25] [--show N] [--json OUT]
        [--bbox W,S,E,N] [--each-deviation] [--wayfinder BIN] [--osrm-bin DIR] [--work DIR]

Builds and serves both engines as scripts/osrm_diff.py does (same cache), routes each pair with steps on both, and
keeps the pairs where both drive the same road (route lengths within 1 %). For every OSRM maneuver but depart and
arrive it looks for the nearest Wayfinder maneuver within --radius metres that no other OSRM maneuver took, and
prints:
  * the same-road share;
  * OSRM maneuvers found, found with the same type and modifier, and Wayfinder maneuvers OSRM does not have;
  * the disagreements, as "OSRM type modifier -> Wayfinder type modifier" (or "none"), most frequent first;
  * with --show N, up to N places per disagreement (lat,lon), with the pair's Wayfinder URL.
With --each-deviation it compares the same pairs once with all of Wayfinder's guidance deviations on, once with
none (`deviations=none`), and once with each turned off alone, and prints one line of figures for each: what
each deviation costs in agreement with OSRM.

Exit status: 0 when it ran, 2 on a setup failure (reason on stderr). Standard library only.
"""
import argparse
import atexit
import collections
import json
import math
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import osrm_diff  # noqa: E402  (the shared setup: builds, servers, random road points)


def metres(a, b):
    """Equirectangular distance between two [lon, lat] points: exact enough within 25 m."""
    k = math.pi / 180
    x = (b[0] - a[0]) * k * math.cos((a[1] + b[1]) / 2 * k)
    y = (b[1] - a[1]) * k
    return 6371008.8 * math.hypot(x, y)


def maneuvers(route):
    """(label, [lon, lat]) of every maneuver of the route but depart and arrive."""
    out = []
    for leg in route["legs"]:
        for step in leg["steps"]:
            m = step["maneuver"]
            if m["type"] in ("depart", "arrive"):
                continue
            out.append((" ".join(filter(None, (m["type"], m.get("modifier")))), m["location"]))
    return out


def match(osrm, wayfinder, radius):
    """Pairs each OSRM maneuver with the nearest free Wayfinder one within radius, closest pairs first.
    Returns ([(osrm label, wayfinder label or None, location)], [unmatched wayfinder maneuvers])."""
    candidates = sorted((metres(o[1], w[1]), i, j) for i, o in enumerate(osrm) for j, w in enumerate(wayfinder)
                        if metres(o[1], w[1]) <= radius)
    taken_o, taken_w, partner = set(), set(), {}
    for _, i, j in candidates:
        if i not in taken_o and j not in taken_w:
            taken_o.add(i)
            taken_w.add(j)
            partner[i] = j
    pairs = [(o[0], wayfinder[partner[i]][0] if i in partner else None, o[1]) for i, o in enumerate(osrm)]
    extra = [w for j, w in enumerate(wayfinder) if j not in taken_w]
    return pairs, extra


def compare(osrm, wf, mode, a, b, options, radius):
    path = f"/route/v1/{mode}/{a[0]:.6f},{a[1]:.6f};{b[0]:.6f},{b[1]:.6f}"
    query = "?steps=true&overview=false"
    urls = (osrm + path + query, wf + path + query + (f"&{options}" if options else ""))
    bodies = [osrm_diff.get(u)[1] or {} for u in urls]
    rec = {"wayfinder_url": urls[1], "osrm_url": urls[0]}
    if any(b.get("code") != "Ok" or not b.get("routes") for b in bodies):
        rec["codes"] = [b.get("code") for b in bodies]
        return rec
    o, w = bodies[0]["routes"][0], bodies[1]["routes"][0]
    rec["same_road"] = abs(o["distance"] - w["distance"]) <= max(1.0, 0.01 * o["distance"])
    if rec["same_road"]:
        rec["pairs"], rec["extra"] = match(maneuvers(o), maneuvers(w), radius)
    return rec


def report(records, args):
    routed = [r for r in records if "same_road" in r]
    same = [r for r in routed if r["same_road"]]
    pairs = [p for r in same for p in r["pairs"]]
    extra = [e for r in same for e in r["extra"]]
    found = [p for p in pairs if p[1] is not None]
    agree = [p for p in found if p[0] == p[1]]
    total_w = len(found) + len(extra)
    pct = lambda n, d: f"{100 * n / d:.1f} %" if d else "n/a"
    print(f"{args.extract} ({args.mode}), {args.pairs} pairs, seed {args.seed}, Wayfinder options "
          f"{args.options or '(none)'}, import options {args.import_options or '(none)'}")
    print(f"  routed by both: {len(routed)}; on the same road (lengths within 1 %): {len(same)} ({pct(len(same), len(routed))})")
    print(f"  OSRM maneuvers: {len(pairs)}; found within {args.radius:g} m: {len(found)} ({pct(len(found), len(pairs))}); "
          f"same type and modifier: {len(agree)} ({pct(len(agree), len(pairs))})")
    print(f"  Wayfinder maneuvers: {total_w}; not in OSRM's: {len(extra)} ({pct(len(extra), total_w)})")
    where = collections.defaultdict(list)
    for r in same:
        for o, w, loc in r["pairs"]:
            if o != w:
                where[(o, w or "none")].append((loc, r["wayfinder_url"]))
        for w, loc in r["extra"]:
            where[("none", w)].append((loc, r["wayfinder_url"]))
    print("  disagreements, OSRM -> Wayfinder:")
    for (o, w), places in sorted(where.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:args.top]:
        print(f"    {len(places):5d}  {o} -> {w}")
        for loc, url in places[:args.show]:
            print(f"           {loc[1]:.6f},{loc[0]:.6f}  {url}")
    return {"routed": len(routed), "same_road": len(same), "osrm_maneuvers": len(pairs), "found": len(found),
            "agree": len(agree), "wayfinder_maneuvers": total_w, "extra": len(extra),
            "disagreements": {f"{o} -> {w}": len(p) for (o, w), p in where.items()}}


# Wayfinder's guidance deviations by the names `deviations=` takes (GUIDANCE.md, "Where we decide otherwise").
DEVIATIONS = ["fold_short_steps", "use_lane", "names", "tidy_names"]


def each_deviation(osrm, wf, points, args):
    """One line of figures per setting: all deviations, none, and all but one, on the same pairs."""
    settings = [("all", "all"), ("none", "none")] + [
        (f"without {d}", ",".join(x for x in DEVIATIONS if x != d)) for d in DEVIATIONS]
    print(f"{args.extract} ({args.mode}), {args.pairs} pairs, seed {args.seed}, import options "
          f"{args.import_options or '(none)'}")
    print(f"  {'deviations':28s} {'same road':>9s} {'found':>7s} {'same':>7s} {'extra':>7s}")
    for label, value in settings:
        options = "&".join(x for x in (args.options, f"deviations={value}") if x)
        records = [compare(osrm, wf, args.mode, points[2 * i], points[2 * i + 1], options, args.radius)
                   for i in range(args.pairs)]
        same = [r for r in records if r.get("same_road")]
        pairs = [p for r in same for p in r["pairs"]]
        extra = sum(len(r["extra"]) for r in same)
        found = sum(1 for p in pairs if p[1] is not None)
        agree = sum(1 for p in pairs if p[1] is not None and p[0] == p[1])
        pct = lambda n, d: f"{100 * n / d:.1f} %" if d else "n/a"
        print(f"  {label:28s} {len(same):9d} {pct(found, len(pairs)):>7s} {pct(agree, len(pairs)):>7s} "
              f"{pct(extra, found + extra):>7s}")


def bbox(text):
    """west,south,east,north in degrees, west < east and south < north."""
    try:
        w, s, e, n = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not four numbers west,south,east,north")
    if not (-180 <= w < e <= 180 and -90 <= s < n <= 90):
        raise argparse.ArgumentTypeError(f"{text!r} is not a box west,south,east,north")
    return w, s, e, n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    osrm_diff.add_setup_arguments(ap, pairs=200)
    ap.add_argument("--radius", type=float, default=25.0, help="metres within which a maneuver counts as found")
    ap.add_argument("--show", type=int, default=0, metavar="N", help="places listed per disagreement")
    ap.add_argument("--top", type=int, default=25, help="disagreements listed")
    ap.add_argument("--json", metavar="OUT", help="write the figures and every pair here")
    ap.add_argument("--each-deviation", action="store_true",
                    help="compare with each of Wayfinder's guidance deviations turned off in turn (deviations=)")
    ap.add_argument("--bbox", type=bbox, help="west,south,east,north to draw points in (default: the graph's bounds; for an "
                    "extract with stray far-away data)")
    args = osrm_diff.parse_setup_arguments(ap)
    rng = random.Random(args.seed)
    try:
        osrm, wf, box = osrm_diff.setup(args)
        box = args.bbox or box
        atexit.register(shutil.rmtree, args.logs, True)
        points = osrm_diff.road_points(osrm, args.mode, box, 2 * args.pairs, rng)
    except osrm_diff.SetupError as e:
        print(f"compare_osrm: setup failed: {e}", file=sys.stderr)
        return 2
    if args.each_deviation:
        each_deviation(osrm, wf, points, args)
        return 0
    records = [compare(osrm, wf, args.mode, points[2 * i], points[2 * i + 1], args.options, args.radius)
               for i in range(args.pairs)]
    figures = report(records, args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"extract": args.extract, "mode": args.mode, "seed": args.seed, "options": args.options,
                       "figures": figures, "pairs": records}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
