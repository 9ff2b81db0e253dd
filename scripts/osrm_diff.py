#!/usr/bin/env python3
"""Differential comparison of Wayfinder against OSRM (osrm-routed, CH) on the same extract and random pairs.

    scripts/osrm_diff.py --extract FILE.osm.pbf [--mode driving|walking|cycling] [--pairs 100] [--seed 1]
        [--wayfinder BIN] [--osrm-bin DIR] [--work DIR] [--options 'compat=osrm'] [--import-options '--compat osrm'] [--table N] [--json OUT]
        [--same-path-tolerance 5] [--distance-tolerance 0.01]
        [--segment-speeds FILE] [--turn-penalties FILE] [--random-traffic N]
        [--conditionals-at 2025-01-15T07:30Z --time-zone Europe/Lisbon]

Builds OSRM's data with car.lua (driving), foot.lua (walking) or bicycle.lua (cycling) and Wayfinder's graph for the extract (cached in
--work, keyed by the extract's sha256 and the profile or the Wayfinder binary), serves both on free loopback ports,
draws random road points (uniform in the graph's bounds, snapped with OSRM's /nearest) and sends each pair, as the
same coordinates, to both /route endpoints; --options is appended to Wayfinder's requests only.

It measures:
  * how often the answer codes differ (e.g. OSRM Ok where Wayfinder says NoRoute), with counts;
  * the share of pairs on which both take the same path: the full geometries (polyline6) lie within
    --same-path-tolerance metres of each other both ways (Hausdorff distance) and the route distances agree
    within --distance-tolerance (relative, at least 1 m);
  * on same-path pairs, the median / p90 / p99 / max absolute difference of duration (s), weight and distance (m),
    the median signed difference (Wayfinder - OSRM: a systematic bias), how many are within 0.1, and the five
    worst pairs with both engines' URLs to reproduce them;
  * with --table N, an N x N table from both (split into source x destination blocks whenever a GET URL would
    exceed 8000 bytes): cells null in one engine only, and the median / p99 relative duration difference of the rest,
    how many are within 0.1 s and the largest gap.

Traffic: --segment-speeds and --turn-penalties (OSRM's CSV formats) go to osrm-contract and to `wayfinder customize`;
--random-traffic N writes such files first, from the nodes of N random OSRM routes (a random speed on 30 % of their
segments, 1 % closed, a 5-60 s penalty on 5 % of their turns), so that the traffic lies where routes go.

Conditional restrictions: --conditionals-at T (an instant, with Z) has OSRM parse them (osrm-extract
--parse-conditional-restrictions) and apply them at T in --time-zone (osrm-contract --parse-conditionals-from-now, with
a time zone file covering the world), and gives Wayfinder's import --time-zone and its requests depart_at=T.
scripts/conditional_extract.py makes an extract's restrictions conditional.

Exit status: 0 when it ran (whatever it found), 2 on a setup failure (reason on stderr), so tests can skip;
a Wayfinder that refuses --options counts as a setup failure.
Standard library only. OSRM's binaries: scripts/install-osrm.sh (run when --osrm-bin is not given).
"""
import argparse
import atexit
import collections
import ctypes
import datetime
import hashlib
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from itertools import accumulate

MAX_URL = 8000
PROCS = []


class SetupError(Exception):
    pass


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def run(cmd, log):
    with open(log, "w") as out:
        if subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT).returncode != 0:
            raise SetupError(f"{' '.join(cmd)} failed; see {log}")


def cached_build(final, build):
    """Runs build(tmpdir) unless final exists, then renames tmpdir to final: a half-done build is never reused, and
    a failed one stays in its .tmp directory with its logs."""
    if not os.path.isdir(final):
        tmp = tempfile.mkdtemp(prefix=os.path.basename(final) + ".tmp", dir=os.path.dirname(final))
        build(tmp)
        try:
            os.rename(tmp, final)
        except OSError:  # a concurrent run finished the same build first
            shutil.rmtree(tmp, ignore_errors=True)
    return final


def traffic_files(args):
    return [f for f in (args.segment_speeds, args.turn_penalties) if f]


def conditional_epoch(args):
    """--conditionals-at as seconds since 1970 (UTC)."""
    return int(datetime.datetime.strptime(args.conditionals_at, "%Y-%m-%dT%H:%MZ")
               .replace(tzinfo=datetime.timezone.utc).timestamp())


def traffic_suffix(args):
    """Part of a build's cache key: the traffic files' contents, and when conditional restrictions are applied."""
    files = traffic_files(args)
    if args.conditionals_at:
        return f"-conditional-{conditional_epoch(args)}-{args.time_zone.replace('/', '_')}" + traffic_suffix_of(files)
    return traffic_suffix_of(files)


def traffic_suffix_of(files):
    if not files:
        return ""
    h = hashlib.sha256()
    for f in files:
        h.update(sha256(f).encode())
    return "-traffic-" + h.hexdigest()[:12]


def build_osrm(args, key):
    profile = os.path.normpath(os.path.join(args.osrm_bin, "..", "share", "profiles",
                                            {"driving": "car.lua", "walking": "foot.lua", "cycling": "bicycle.lua"}[args.mode]))
    if not os.path.exists(profile):
        raise SetupError(f"no OSRM profile at {profile}")

    def build(d):
        os.symlink(os.path.abspath(args.extract), os.path.join(d, "map.osm.pbf"))
        conditional = ["--parse-conditional-restrictions"] if args.conditionals_at else []
        run([os.path.join(args.osrm_bin, "osrm-extract"), "-p", profile] + conditional + [os.path.join(d, "map.osm.pbf")],
            os.path.join(d, "extract.log"))
        traffic = []
        if args.conditionals_at:
            zones = os.path.join(d, "zones.geojson")
            # The world in bands 60 degrees wide: OSRM finds no point inside a polygon 180 degrees wide or more
            # (measured: its restrictions then never apply, without a word).
            with open(zones, "w") as f:
                json.dump({"type": "FeatureCollection", "features": [{
                    "type": "Feature", "properties": {"tzid": args.time_zone},
                    "geometry": {"type": "Polygon", "coordinates": [[[w, -85], [w + 60, -85], [w + 60, 85], [w, 85], [w, -85]]]}}
                    for w in range(-180, 180, 60)]}, f)
            traffic += ["--time-zone-file", zones, "--parse-conditionals-from-now", str(conditional_epoch(args))]
        if args.segment_speeds:
            traffic += ["--segment-speed-file", os.path.abspath(args.segment_speeds)]
        if args.turn_penalties:
            traffic += ["--turn-penalty-file", os.path.abspath(args.turn_penalties)]
        run([os.path.join(args.osrm_bin, "osrm-contract"), os.path.join(d, "map.osrm")] + traffic,
            os.path.join(d, "contract.log"))
    return os.path.join(cached_build(os.path.join(args.work, f"osrm-{key}-{args.mode}{traffic_suffix(args)}"), build),
                        "map.osrm")


def build_wayfinder(args, key):
    """Keyed by the binary too (a new build may change the graph format); other binaries' graphs of the extract go."""
    def build(d):
        # Only the mode compared: the others would only add to the import's time.
        run([args.wayfinder, "import", args.extract, "--output", os.path.join(d, "graph"), "--quiet",
             "--modes", args.mode] + (["--time-zone", args.time_zone] if args.time_zone else [])
            + args.import_options.split(), os.path.join(d, "import.log"))
        if traffic_files(args):
            traffic = []
            if args.segment_speeds:
                traffic += ["--segment-speeds", os.path.abspath(args.segment_speeds)]
            if args.turn_penalties:
                traffic += ["--turn-penalties", os.path.abspath(args.turn_penalties)]
            run([args.wayfinder, "customize", "--graph", os.path.join(d, "graph"), "--mode", args.mode] + traffic,
                os.path.join(d, "customize.log"))
        for old in os.listdir(args.work):
            if old.startswith(f"wf-{key}-") and ".tmp" not in old and old[len(f"wf-{key}-") + 12:] == suffix:
                shutil.rmtree(os.path.join(args.work, old), ignore_errors=True)
    rules = "-osrm" if "osrm" in args.import_options else ""
    suffix = f"{rules}-{args.mode}{traffic_suffix(args)}"
    final = os.path.join(args.work, f"wf-{key}-{sha256(args.wayfinder)[:12]}{suffix}")
    return os.path.join(cached_build(final, build), "graph")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(cmd, log, probe_url, name):
    # On Linux the server gets SIGTERM (PR_SET_PDEATHSIG) even when this script dies without running atexit.
    death_signal = (lambda: ctypes.CDLL(None).prctl(1, signal.SIGTERM)) if sys.platform == "linux" else None
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                preexec_fn=death_signal)
    PROCS.append(proc)
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SetupError(f"{name} exited with status {proc.returncode}; see {log}")
        if get(probe_url, timeout=2)[0] == 200:
            return
        time.sleep(0.2)
    raise SetupError(f"{name} not ready after 120 s; see {log}")


def stop_all():
    for p in PROCS:
        if p.poll() is None:
            p.terminate()
    for p in PROCS:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()


def get(url, timeout=60):
    """(HTTP status, parsed JSON or None); status 0 when the server could not be reached."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.loads(e.read())
        except ValueError:
            return e.code, None
    except (OSError, ValueError):
        return 0, None


def bounds(args, graph):
    """(west, south, east, north) of the mode's graph from `wayfinder info`, else osmium's header box."""
    info = subprocess.run([args.wayfinder, "info", "--graph", graph], capture_output=True, text=True).stdout
    section = None
    for line in info.splitlines():
        section = line.split(":")[0] if re.match(r"\w+:", line) else section
        m = re.search(r"bounds\s+(-?[\d.]+),(-?[\d.]+)\s+\S+\s+(-?[\d.]+),(-?[\d.]+)", line)
        if m and section == args.mode:
            s, w, n, e = map(float, m.groups())
            return w, s, e, n
    if shutil.which("osmium"):
        out = subprocess.run(["osmium", "fileinfo", "-g", "header.boxes", args.extract],
                             capture_output=True, text=True).stdout
        m = re.search(r"\((-?[\d.]+),(-?[\d.]+),(-?[\d.]+),(-?[\d.]+)\)", out)
        if m:
            return tuple(map(float, m.groups()))
    raise SetupError("could not find the extract's bounds (wayfinder info, osmium fileinfo)")


def road_points(osrm, mode, box, n, rng, max_snap=500.0):
    """n points uniform in box, snapped onto roads by OSRM's /nearest (drawn again when the nearest road is far)."""
    points = []
    for _ in range(n * 50):
        if len(points) == n:
            return points
        lon, lat = rng.uniform(box[0], box[2]), rng.uniform(box[1], box[3])
        code, body = get(f"{osrm}/nearest/v1/{mode}/{lon:.6f},{lat:.6f}")
        if code == 200 and body.get("waypoints") and body["waypoints"][0]["distance"] <= max_snap:
            points.append(tuple(body["waypoints"][0]["location"]))
    if len(points) < n:
        raise SetupError(f"only {len(points)} of {n} random points have a road within {max_snap:.0f} m")
    return points


def decode_polyline6(text):
    values, value, shift = [], 0, 0
    for ch in text:
        b = ord(ch) - 63
        value |= (b & 0x1F) << shift
        shift += 5
        if b < 0x20:
            values.append(~(value >> 1) if value & 1 else value >> 1)
            value = shift = 0
    return [(lon / 1e6, lat / 1e6) for lat, lon in zip(accumulate(values[0::2]), accumulate(values[1::2]))]


def seg_dist(p, a, b):
    dx, dy = b[0] - a[0], b[1] - a[1]
    L = dx * dx + dy * dy
    t = 0.0 if L == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / L))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def directed_deviation(A, B, step, cell):
    """Largest distance (m) from polyline A to polyline B, within ~0.1 m when under `cell` metres, else a lower
    bound (the paths differ anyway). The distance to one B segment is convex along an A segment, so when one B
    segment is about as close to both ends of an A segment as B is, the ends bound the whole A segment; otherwise
    (e.g. A cuts a corner of B) that A segment is sampled every `step` metres."""
    segs = [(B[i], B[i + 1]) for i in range(len(B) - 1)] or [(B[0], B[0])]
    grid = collections.defaultdict(list)
    for s in segs:
        for gx in range(int(min(s[0][0], s[1][0]) // cell), int(max(s[0][0], s[1][0]) // cell) + 1):
            for gy in range(int(min(s[0][1], s[1][1]) // cell), int(max(s[0][1], s[1][1]) // cell) + 1):
                grid[gx, gy].append(s)

    def near(p):
        cx, cy = int(p[0] // cell), int(p[1] // cell)
        return [s for gx in (cx - 1, cx, cx + 1) for gy in (cy - 1, cy, cy + 1) for s in grid.get((gx, gy), ())]

    def dist(p):
        d = min((seg_dist(p, *s) for s in near(p)), default=math.inf)
        return d if d <= cell else min(seg_dist(p, *s) for s in segs)

    worst, d0 = 0.0, dist(A[0])
    for a, b in zip(A, A[1:] or A):
        d1 = dist(b)
        if max(d0, d1) > cell:
            return max(d0, d1)
        bound = min((max(seg_dist(a, *s), seg_dist(b, *s)) for s in near(a)), default=math.inf)
        if bound - max(d0, d1) > 0.1:
            k = max(1, int(math.hypot(b[0] - a[0], b[1] - a[1]) / step))
            bound = max(dist((a[0] + (b[0] - a[0]) * j / k, a[1] + (b[1] - a[1]) * j / k)) for j in range(k + 1))
            if bound > cell:
                return bound
        worst, d0 = max(worst, bound, d1), d1
    return worst


def hausdorff(geom_a, geom_b, tol):
    a, b = decode_polyline6(geom_a), decode_polyline6(geom_b)
    if not a or not b:
        return math.inf
    k, c = math.pi / 180 * 6371008.8, math.cos(math.radians(a[0][1]))  # local equirectangular metres
    A, B = ([(lon * k * c, lat * k) for lon, lat in g] for g in (a, b))
    step, cell = max(0.5, tol / 2), max(25.0, 4 * tol)
    return max(directed_deviation(A, B, step, cell), directed_deviation(B, A, step, cell))


def pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, max(0, math.ceil(q / 100 * len(v)) - 1))] if v else None


def route_urls(osrm, wf, mode, a, b, options):
    path = f"/route/v1/{mode}/{a[0]:.6f},{a[1]:.6f};{b[0]:.6f},{b[1]:.6f}"
    query = "?overview=full&geometries=polyline6&annotations=duration,distance,nodes"
    return osrm + path + query, wf + path + query + (f"&{options}" if options else "")


def compare_pair(osrm_url, wf_url, args):
    rec, routes = {"osrm_url": osrm_url, "wayfinder_url": wf_url}, {}
    for name, url in (("osrm", osrm_url), ("wayfinder", wf_url)):
        status, body = get(url)
        rec[name] = {"code": (body or {}).get("code") or (f"HTTP {status}" if status else "unreachable")}
        if rec[name]["code"] == "Ok" and body.get("routes"):
            routes[name] = r = body["routes"][0]
            rec[name].update(duration=r["duration"], weight=r.get("weight"), distance=r["distance"])
        elif body and body.get("message"):
            rec[name]["message"] = body["message"]
    if len(routes) == 2:
        o, w = routes["osrm"], routes["wayfinder"]
        dev = hausdorff(o["geometry"], w["geometry"], args.same_path_tolerance)
        dist_ok = abs(o["distance"] - w["distance"]) <= max(1.0, args.distance_tolerance * o["distance"])
        rec["deviation_m"] = round(dev, 2) if math.isfinite(dev) else None
        rec["same_path"] = dev <= args.same_path_tolerance and dist_ok
        rec["diff"] = {k: None if w.get(k) is None or o.get(k) is None else round(w[k] - o[k], 6)
                       for k in ("duration", "weight", "distance")}
        if rec["same_path"]:
            rec["nodes_equal"] = leg_nodes(o) == leg_nodes(w)
            rec["summaries_equal"] = [l.get("summary") for l in o["legs"]] == [l.get("summary") for l in w["legs"]]
    return rec


def leg_nodes(route):
    """Each leg's OSM nodes, without the node of a zero-length first or last segment: OSRM starts a point that
    snapped exactly onto a node on the segment before it, and lists that segment's other end too."""
    legs = []
    for leg in route["legs"]:
        a = leg.get("annotation", {})
        nodes, lengths = list(a.get("nodes", [])), a.get("distance", [])
        if len(lengths) > 1 and len(nodes) == len(lengths) + 1:
            if lengths[-1] == 0:
                nodes.pop()
            if lengths[0] == 0:
                nodes.pop(0)
        legs.append(nodes)
    return legs


def table_urls(base, mode, points, options):
    """(sources, destinations, GET URL) blocks covering the N x N table with every URL under MAX_URL bytes: one
    request when it fits, else square source x destination blocks, each sending only its own coordinates."""
    n = size = len(points)
    while True:
        ranges = [range(i, min(n, i + size)) for i in range(0, n, size)]
        blocks = []
        for src in ranges:
            for dst in ranges:
                idx, q = list(src), ""
                if src != dst:
                    idx += list(dst)
                    q = "&sources={}&destinations={}".format(";".join(str(i) for i in range(len(src))),
                                                            ";".join(str(len(src) + j) for j in range(len(dst))))
                coords = ";".join(f"{points[i][0]:.6f},{points[i][1]:.6f}" for i in idx)
                blocks.append((src, dst, f"{base}/table/v1/{mode}/{coords}?annotations=duration,distance{q}"
                               + (f"&{options}" if options else "")))
        if size == 1 or max(len(u) for _, _, u in blocks) <= MAX_URL:
            return blocks
        size = (size + 1) // 2 if size == n else size - max(1, size // 8)


def table(base, mode, points, options):
    n = len(points)
    dur, errors = [[None] * n for _ in range(n)], collections.Counter()
    blocks = table_urls(base, mode, points, options)
    for src, dst, url in blocks:
        status, body = get(url)
        if not body or body.get("code") != "Ok":
            errors[(body or {}).get("code") or f"HTTP {status}"] += 1
            continue
        for a, i in enumerate(src):
            for b, j in enumerate(dst):
                dur[i][j] = body["durations"][a][b]
    return dur, dict(errors), len(blocks)


def compare_tables(osrm, wf, mode, points, options):
    (od, oerr, blocks), (wd, werr, _) = table(osrm, mode, points, ""), table(wf, mode, points, options)
    cells = [(od[i][j], wd[i][j], i == j) for i in range(len(points)) for j in range(len(points))]
    signed = [(w - o) / o for o, w, diag in cells if not diag and o is not None and w is not None and o > 0]
    rel = [abs(x) for x in signed]
    gaps = [abs(w - o) for o, w, diag in cells if not diag and o is not None and w is not None]
    return {"points": len(points), "cells": len(cells), "blocks": blocks, "osrm_errors": oerr,
            "both_numeric_cells": len(gaps), "within_0.1": sum(1 for g in gaps if g <= 0.1 + 1e-9),
            "max_abs_duration_diff": max(gaps, default=None),
            "wayfinder_errors": werr,
            "null_in_wayfinder_only": sum(1 for o, w, _ in cells if w is None and o is not None),
            "null_in_osrm_only": sum(1 for o, w, _ in cells if o is None and w is not None),
            "both_numeric_off_diagonal": len(rel), "median_rel_duration_diff": pct(rel, 50),
            "p99_rel_duration_diff": pct(rel, 99),
            "median_signed_rel_duration_diff": statistics.median(signed) if signed else None, "points_lonlat": points}


def summarize(pairs):
    both = [p for p in pairs if "same_path" in p]
    same = [p for p in both if p["same_path"]]
    codes = collections.Counter(f"OSRM {p['osrm']['code']} vs Wayfinder {p['wayfinder']['code']}"
                                for p in pairs if p["osrm"]["code"] != p["wayfinder"]["code"])
    s = {"pairs": len(pairs), "both_ok": len(both), "codes_differ": sum(codes.values()),
         "code_differences": dict(codes.most_common()), "same_path": len(same),
         "same_path_share": len(same) / len(both) if both else None, "same_path_stats": {}}
    for key in ("duration", "weight", "distance"):
        vals = [p["diff"][key] for p in same if p["diff"][key] is not None]
        absv = [abs(v) for v in vals]
        if vals:
            s["same_path_stats"][key] = {"median": pct(absv, 50), "p90": pct(absv, 90), "p99": pct(absv, 99),
                                         "max": max(absv), "median_signed": statistics.median(vals),
                                         "within_0.1": sum(1 for v in absv if v <= 0.1 + 1e-9), "n": len(vals)}
    s["nodes_equal"] = sum(1 for p in same if p.get("nodes_equal"))
    s["nodes_differ_urls"] = [p["osrm_url"] for p in same if not p.get("nodes_equal")][:5]
    s["summaries_equal"] = sum(1 for p in same if p.get("summaries_equal"))
    s["worst_same_path"] = sorted(same, key=lambda p: -abs(p["diff"]["duration"]))[:5]
    return s


def report(s, t, args):
    share = "-" if s["same_path_share"] is None else f"{100 * s['same_path_share']:.1f}%"
    out = [f"osrm_diff {os.path.basename(args.extract)} mode={args.mode} pairs={s['pairs']} seed={args.seed}"
           + (f" options={args.options}" if args.options else ""),
           f"  both answered Ok: {s['both_ok']}/{s['pairs']}; codes differ: {s['codes_differ']}"]
    out.insert(1, f"  data (serve again to reproduce): {args.osrm_data} (osrm-routed), {args.graph} (wayfinder serve)")
    out += [f"    {k}: {v}" for k, v in s["code_differences"].items()]
    out.append(f"  same path (<= {args.same_path_tolerance:g} m apart, distance within "
               f"{100 * args.distance_tolerance:g}%): {s['same_path']}/{s['both_ok']} ({share})")
    for key, unit in (("duration", "s"), ("weight", ""), ("distance", "m")):
        st = s["same_path_stats"].get(key)
        if st:
            out.append(f"    |{key} diff| {unit:1} median {st['median']:.3f} p90 {st['p90']:.3f} p99 {st['p99']:.3f}"
                       f" max {st['max']:.3f}; median signed (wf-osrm) {st['median_signed']:+.3f}; "
                       f"within 0.1: {st['within_0.1']}/{st['n']}")
    out.append(f"    OSM nodes (annotations=nodes) equal: {s['nodes_equal']}/{s['same_path']}")
    out += [f"      differ: {u}" for u in s["nodes_differ_urls"]]
    out.append(f"    leg summaries equal: {s['summaries_equal']}/{s['same_path']}")
    if s["worst_same_path"]:
        out.append("  worst same-path pairs by |duration diff| (osrm -> wayfinder):")
    for p in s["worst_same_path"]:
        o, w = p["osrm"], p["wayfinder"]
        out += [f"    duration {o['duration']:.1f} -> {w['duration']:.1f} s, weight {o['weight']} -> {w['weight']}, "
                f"distance {o['distance']:.1f} -> {w['distance']:.1f} m, paths {p['deviation_m']} m apart",
                f"      {p['osrm_url']}", f"      {p['wayfinder_url']}"]
    if t:
        def f(x):
            return "-" if x is None else f"{100 * x:.3f}%"
        out += [f"  table {t['points']}x{t['points']} in {t['blocks']} request(s) each; failed requests: "
                f"osrm {t['osrm_errors'] or 0}, wayfinder {t['wayfinder_errors'] or 0}",
                f"    null in Wayfinder only: {t['null_in_wayfinder_only']} "
                f"({100 * t['null_in_wayfinder_only'] / t['cells']:.2f}%); null in OSRM only: "
                f"{t['null_in_osrm_only']} ({100 * t['null_in_osrm_only'] / t['cells']:.2f}%)",
                f"    both numeric (off-diagonal): {t['both_numeric_off_diagonal']}; relative duration difference "
                f"median {f(t['median_rel_duration_diff'])} p99 {f(t['p99_rel_duration_diff'])}; median signed "
                f"(wf-osrm)/osrm {f(t['median_signed_rel_duration_diff'])}; within 0.1 s: "
                f"{t['within_0.1']}/{t['both_numeric_cells']}, max {t['max_abs_duration_diff'] or 0:.1f} s"]
    print("\n".join(out))


def setup(args):
    for path, what in ((args.extract, "extract"), (args.wayfinder, "wayfinder binary")):
        if not os.path.isfile(path):
            raise SetupError(f"no {what} at {path}")
    if not args.osrm_bin:
        r = subprocess.run([os.path.join(os.path.dirname(os.path.abspath(__file__)), "install-osrm.sh")],
                           capture_output=True, text=True)
        if r.returncode != 0 or not r.stdout.strip():
            raise SetupError(f"OSRM not available: {r.stderr.strip()}")
        args.osrm_bin = r.stdout.strip().splitlines()[-1]
    if not os.access(os.path.join(args.osrm_bin, "osrm-routed"), os.X_OK):
        raise SetupError(f"no osrm-routed in {args.osrm_bin}")
    os.makedirs(args.work, exist_ok=True)
    key = sha256(args.extract)[:16]
    if args.random_traffic:
        random_traffic(args, key)
    args.osrm_data, args.graph = osrm_data, graph = build_osrm(args, key), build_wayfinder(args, key)
    op, wp = free_port(), free_port()
    osrm, wf = f"http://127.0.0.1:{op}", f"http://127.0.0.1:{wp}"
    args.logs = tempfile.mkdtemp(prefix="logs-", dir=args.work)
    start([os.path.join(args.osrm_bin, "osrm-routed"), "-i", "127.0.0.1", "-p", str(op), "-a", "CH",
           "--max-table-size", "100000", osrm_data], os.path.join(args.logs, "osrm-routed.log"),
          f"{osrm}/nearest/v1/{args.mode}/0,0", "osrm-routed")
    start([args.wayfinder, "serve", "--graph", graph, "--port", str(wp), "--quiet"],
          os.path.join(args.logs, "wayfinder.log"), f"{wf}/health", "wayfinder serve")
    return osrm, wf, bounds(args, graph)


def random_traffic(args, key):
    """Writes --random-traffic's files from the nodes of random routes of OSRM without traffic."""
    plain = build_osrm(args, key)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    logs = tempfile.mkdtemp(prefix="logs-", dir=args.work)
    start([os.path.join(args.osrm_bin, "osrm-routed"), "-i", "127.0.0.1", "-p", str(port), "-a", "CH", plain],
          os.path.join(logs, "osrm-routed-plain.log"), f"{base}/nearest/v1/{args.mode}/0,0", "osrm-routed")
    rng = random.Random(args.seed * 7919 + args.random_traffic)
    box = bounds(args, build_wayfinder(args, key))
    points = road_points(base, args.mode, box, 2 * args.random_traffic, rng)
    speeds, turns = {}, {}
    for i in range(args.random_traffic):
        a, b = points[2 * i], points[2 * i + 1]
        code, body = get(f"{base}/route/v1/{args.mode}/{a[0]},{a[1]};{b[0]},{b[1]}?annotations=nodes&overview=false")
        if code != 200 or not body.get("routes"):
            continue
        nodes = [n for leg in body["routes"][0]["legs"] for n in leg["annotation"]["nodes"]]
        for p, q in zip(nodes, nodes[1:]):
            draw = rng.random()
            if draw < 0.01:
                speeds[(p, q)] = "0"
            elif draw < 0.30:
                speeds[(p, q)] = str(rng.randint(5, 100))
        for p, q, r in zip(nodes, nodes[1:], nodes[2:]):
            if rng.random() < 0.05:
                turns[(p, q, r)] = str(rng.randint(5, 60))
    PROCS[-1].terminate()
    PROCS[-1].wait()
    name = os.path.join(args.work, f"traffic-{key}-{args.mode}-{args.seed}-{args.random_traffic}")
    args.segment_speeds, args.turn_penalties = name + "-speeds.csv", name + "-turns.csv"
    with open(args.segment_speeds, "w") as f:
        f.writelines(f"{p},{q},{v}\n" for (p, q), v in sorted(speeds.items()))
    with open(args.turn_penalties, "w") as f:
        f.writelines(f"{p},{q},{r},{v}\n" for (p, q, r), v in sorted(turns.items()))
    print(f"random traffic: {len(speeds)} segment speeds, {len(turns)} turn penalties from {args.random_traffic} routes",
          file=sys.stderr)


def add_setup_arguments(ap, pairs):
    """The arguments `setup` reads, shared with compare_osrm.py."""
    ap.add_argument("--extract", required=True, help=".osm.pbf file")
    ap.add_argument("--mode", choices=("driving", "walking", "cycling"), default="driving")
    ap.add_argument("--pairs", type=int, default=pairs)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--wayfinder", help="binary (default: this checkout's .build/release/wayfinder)",
                    default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "release", "wayfinder"))
    ap.add_argument("--osrm-bin", help="directory with osrm-extract/-contract/-routed (default: install-osrm.sh)")
    ap.add_argument("--work", help="cache of built data and server logs "
                    "(default: ${XDG_CACHE_HOME:-~/.cache}/wayfinder/osrm-diff)")
    ap.add_argument("--options", default="", help="query options appended to Wayfinder's requests only")
    ap.add_argument("--import-options", default="", help="extra arguments for wayfinder import (e.g. '--compat osrm')")
    ap.add_argument("--segment-speeds", help="segment speed file for osrm-contract and wayfinder customize")
    ap.add_argument("--turn-penalties", help="turn penalty file for osrm-contract and wayfinder customize")
    ap.add_argument("--random-traffic", type=int, default=0, metavar="N",
                    help="write random traffic files from N random OSRM routes and use them")
    ap.add_argument("--conditionals-at", metavar="TIME", help="apply conditional restrictions at this UTC instant "
                    "(YYYY-MM-DDTHH:MMZ): OSRM at contraction, Wayfinder with depart_at")
    ap.add_argument("--time-zone", help="the extract's IANA time zone (with --conditionals-at)")


def parse_setup_arguments(ap):
    """Parses, fills in the cache's default place, and stops the servers however the script ends."""
    args = ap.parse_args()
    args.work = args.work or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                                          "wayfinder", "osrm-diff")
    args.options = args.options.lstrip("?&")
    if args.conditionals_at:
        if not args.time_zone:
            ap.error("--conditionals-at needs --time-zone")
        conditional_epoch(args)  # a malformed time fails here
        args.options = "&".join(o for o in (args.options, "depart_at=" + args.conditionals_at) if o)
    atexit.register(stop_all)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return args


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_setup_arguments(ap, pairs=100)
    ap.add_argument("--table", type=int, default=0, metavar="N", help="also compare an N x N table")
    ap.add_argument("--json", metavar="OUT", help="write the summary, table figures and every pair here")
    ap.add_argument("--same-path-tolerance", type=float, default=5.0, metavar="METRES")
    ap.add_argument("--distance-tolerance", type=float, default=0.01, metavar="FRACTION")
    args = parse_setup_arguments(ap)
    rng = random.Random(args.seed)
    try:
        osrm, wf, box = setup(args)
        atexit.register(shutil.rmtree, args.logs, True)  # kept only when setup fails
        points = road_points(osrm, args.mode, box, 2 * args.pairs, rng)
        body = get(route_urls(osrm, wf, args.mode, points[0], points[1], args.options)[1])[1]
        if body and body.get("code") in ("InvalidOptions", "InvalidQuery", "InvalidValue"):
            raise SetupError(f"Wayfinder rejects --options {args.options!r}: {body.get('message')}")
    except SetupError as e:
        print(f"osrm_diff: setup failed: {e}", file=sys.stderr)
        return 2
    pairs = [compare_pair(*route_urls(osrm, wf, args.mode, points[2 * i], points[2 * i + 1], args.options), args)
             for i in range(args.pairs)]
    s = summarize(pairs)
    t = compare_tables(osrm, wf, args.mode, road_points(osrm, args.mode, box, args.table, rng),
                       args.options) if args.table else None
    report(s, t, args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"extract": args.extract, "mode": args.mode, "seed": args.seed, "options": args.options,
                       "summary": s, "table": t, "pairs": pairs}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
