#!/usr/bin/env python3
"""Map matching against OSRM's /match at city GPS noise (issue 30, item 6), on the same extract and traces.

    scripts/match_osrm.py --extract FILE.osm.pbf [--traces 15] [--noise 5,10,20,30] [--seed 1] [--spacing 100]
        [--interval 8] [--options ''] [--osrm-bin DIR] [--work DIR] [--json OUT]

Builds and serves both engines as scripts/osrm_diff.py does (driving). For each trace it routes between two random
road points with OSRM (the truth: its line and length), then takes a fix every --spacing metres along the line,
--interval seconds apart, each moved by Gaussian noise of the level in east and north (one draw per fix, the same
fixes for both engines), and sends them to both /match endpoints with `radiuses` set to the noise and the
timestamps. The distance error is |matched length - true length| / true length, the matched length being the sum
of the matchings (a trace not matched at all counts as 100 %). Per noise level it prints, for each engine, the
median and p90 error and the traces over 5 %.

Exit status: 0 when it ran, 2 on a setup failure (reason on stderr).
"""
import argparse
import json
import math
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import osrm_diff  # noqa: E402  (the shared setup: builds, servers, random road points)


def along(line, lengths, metres):
    k = 1
    while k < len(lengths) - 1 and lengths[k] < metres:
        k += 1
    span = lengths[k] - lengths[k - 1]
    f = 0.0 if span <= 0 else min(1.0, max(0.0, (metres - lengths[k - 1]) / span))
    (lat0, lon0), (lat1, lon1) = line[k - 1], line[k]
    return lat0 + (lat1 - lat0) * f, lon0 + (lon1 - lon0) * f


def metres(a, b):
    r = math.pi / 180
    x = (b[1] - a[1]) * r * math.cos((a[0] + b[0]) / 2 * r)
    y = (b[0] - a[0]) * r
    return math.hypot(x, y) * 6371008.8


def trace(line, noise, spacing, interval, rng):
    lengths = [0.0]
    for a, b in zip(line, line[1:]):
        lengths.append(lengths[-1] + metres(a, b))
    fixes, d = [], 0.0
    while True:
        lat, lon = along(line, lengths, min(d, lengths[-1]))
        dy, dx = rng.gauss(0, noise), rng.gauss(0, noise)
        fixes.append((lat + dy / 111_195.0, lon + dx / (111_195.0 * math.cos(lat * math.pi / 180))))
        if d >= lengths[-1]:
            break
        d += spacing
    return fixes


def match(base, fixes, noise, interval, options):
    coords = ";".join(f"{lon:.6f},{lat:.6f}" for lat, lon in fixes)
    query = (f"?overview=false&radiuses={';'.join([str(noise)] * len(fixes))}"
             f"&timestamps={';'.join(str(i * interval) for i in range(len(fixes)))}")
    if options:
        query += "&" + options
    status, body = osrm_diff.get(f"{base}/match/v1/driving/{coords}{query}")
    if not body or body.get("code") != "Ok":
        return None
    return sum(m["distance"] for m in body["matchings"]), len(body["matchings"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    osrm_diff.add_setup_arguments(ap, pairs=15)
    ap.add_argument("--traces", type=int, default=15)
    ap.add_argument("--noise", default="5,10,20,30")
    ap.add_argument("--spacing", type=float, default=100)
    ap.add_argument("--interval", type=float, default=8)
    ap.add_argument("--json", metavar="OUT")
    args = osrm_diff.parse_setup_arguments(ap)
    args.mode = "driving"
    rng = random.Random(args.seed)
    try:
        osrm, wf, box = osrm_diff.setup(args)
    except osrm_diff.SetupError as e:
        print(f"match_osrm: setup failed: {e}", file=sys.stderr)
        return 2
    # The true routes: OSRM's, between random road points, 2 to 9 km long (at most 100 fixes: osrm-routed's
    # --max-matching-size).
    truths, attempts = [], 0
    while len(truths) < args.traces:
        attempts += 1
        if attempts > 50 * args.traces:
            print(f"match_osrm: only {len(truths)} routes of 2-9 km in {attempts} tries: is the extract that large?", file=sys.stderr)
            return 2
        a, b = osrm_diff.road_points(osrm, "driving", box, 2, rng)
        status, body = osrm_diff.get(f"{osrm}/route/v1/driving/{a[0]:.6f},{a[1]:.6f};{b[0]:.6f},{b[1]:.6f}"
                                     f"?overview=full&geometries=polyline6")
        if not body or body.get("code") != "Ok":
            continue
        route = body["routes"][0]
        if 2000 <= route["distance"] <= 9000:
            truths.append(([(lat, lon) for lon, lat in osrm_diff.decode_polyline6(route["geometry"])], route["distance"]))
    results = {}
    for noise in [float(x) for x in args.noise.split(",")]:
        noise_rng = random.Random(f"{args.seed}-{noise}")
        errors = {"osrm": [], "wayfinder": []}
        signed = {"osrm": [], "wayfinder": []}
        for line, length in truths:
            fixes = trace(line, noise, args.spacing, args.interval, noise_rng)
            for name, base, options in (("osrm", osrm, ""), ("wayfinder", wf, args.options)):
                matched = match(base, fixes, noise, args.interval, options)
                errors[name].append(1.0 if matched is None else abs(matched[0] - length) / length)
                # Longer than the truth: a detour; shorter: a part not matched; and how many matchings.
                signed[name].append(None if matched is None else [round((matched[0] - length) / length, 4), matched[1]])
        row = {}
        for name, values in errors.items():
            ordered = sorted(values)
            row[name] = {"median": statistics.median(ordered), "p90": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))],
                         "over_5_percent": sum(1 for v in values if v > 0.05), "errors": values, "signed": signed[name]}
        results[noise] = row
        print(f"noise {noise:g} m: " + "; ".join(
            f"{name} median {100 * r['median']:.1f} % p90 {100 * r['p90']:.1f} %, {r['over_5_percent']} of {len(truths)} over 5 %"
            for name, r in row.items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"extract": args.extract, "seed": args.seed, "traces": args.traces, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
