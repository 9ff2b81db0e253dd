#!/usr/bin/env python3
"""Traffic updates, measured: `wayfinder customize` end to end, and routes and tables on the customized hierarchy
against the import's contraction hierarchy, alternating in one run (the machine is shared and noisy).

    scripts/bench_customize.py --extract FILE.osm.pbf [--mode driving] [--rounds 5] [--queries 2000] [--matrix 1000]
        [--segment-speeds FILE] [--turn-penalties FILE] [--historical-speeds FILE] [--depart-at T]
        [--work DIR] [--wayfinder BIN]

Imports the extract once (the mode only), copies the graph, and customizes the copy once (its first customization
orders it; that time is reported apart). Then, per round: `customize` of the copy with the files (wall time and
peak memory of the process, which ends with the new generation in place), `bench` on the import's graph, `bench` on
the customized one. Reports medians over the rounds and the ratio of route and table times. With --depart-at,
the customized graph's routes and tables leaving at T are timed too (with historical speeds, every one is a timed
search), against the same graph's untimed figures.
Standard library only.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"bench_customize: {' '.join(cmd)} failed:\n{r.stderr}")
    return r


def timed(cmd):
    """(wall seconds, peak KB, stderr) of a command."""
    started = time.monotonic()
    r = run(["/usr/bin/time", "-f", "%M KB"] + cmd)
    wall = time.monotonic() - started
    peak = int(re.findall(r"(\d+) KB", r.stderr)[-1])
    return wall, peak, r.stderr


def bench(args, graph, depart_at=None):
    out = run([args.wayfinder, "bench", "--graph", graph, "--mode", args.mode, "--queries", str(args.queries),
               "--seed", "1", "--baseline-queries", "1", "--matrix", str(args.matrix)]
              + (["--depart-at", depart_at] if depart_at else [])).stdout
    # The timed routes come after the untimed ones; the tables after both.
    untimed, _, timed = out.partition("leaving at")
    route = float(re.search(r"^CH\s+\d+ queries\s+median ([\d.]+) ms", untimed, re.M).group(1))
    matrix = re.search(r"^matrix \d+x\d+ CH[^\n]*?([\d.]+) (ms|s)\b", out, re.M)
    table = float(matrix.group(1)) * (1000 if matrix.group(2) == "s" else 1) if matrix else float("nan")
    if not depart_at:
        return route, table, out
    timed_route = float(re.search(r"^\s+CH\s+\d+ queries\s+median ([\d.]+) ms", timed, re.M).group(1))
    # Engine tables (snapping included) at the time, and the same without it.
    timed_matrix = re.search(r"^matrix \d+x\d+ leaving at .*?: ([\d.]+) ms against ([\d.]+) ms", out, re.M)
    timed_table = (float(timed_matrix.group(1)), float(timed_matrix.group(2))) if timed_matrix else (float("nan"),) * 2
    return route, table, (timed_route, timed_table, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--extract", required=True)
    ap.add_argument("--mode", default="driving")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--matrix", type=int, default=1000)
    ap.add_argument("--segment-speeds")
    ap.add_argument("--turn-penalties")
    ap.add_argument("--historical-speeds")
    ap.add_argument("--depart-at", help="also time the customized graph's routes and tables leaving at this time")
    ap.add_argument("--work", help="where the graphs go (default: a temporary directory, removed)")
    ap.add_argument("--wayfinder", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build",
                                                         "release", "wayfinder"))
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="bench-customize-")
    try:
        plain, custom = os.path.join(work, "import"), os.path.join(work, "customized")
        for d in (plain, custom):
            shutil.rmtree(d, ignore_errors=True)
        run([args.wayfinder, "import", args.extract, "--output", plain, "--quiet", "--modes", args.mode])
        shutil.copytree(plain, custom, symlinks=True)
        files = []
        if args.segment_speeds:
            files += ["--segment-speeds", args.segment_speeds]
        if args.turn_penalties:
            files += ["--turn-penalties", args.turn_penalties]
        if args.historical_speeds:
            files += ["--historical-speeds", args.historical_speeds]
        customize = [args.wayfinder, "customize", "--graph", custom, "--mode", args.mode] + files
        first, first_peak, first_err = timed(customize)
        print(f"first customization (orders the graph): {first:.3f} s, {first_peak} KB", file=sys.stderr)
        print(first_err.strip(), file=sys.stderr)
        walls, peaks, plain_routes, custom_routes, plain_tables, custom_tables = [], [], [], [], [], []
        timed_routes, timed_tables = [], []
        for r in range(args.rounds):
            wall, peak, err = timed(customize)
            walls.append(wall)
            peaks.append(peak)
            pr, pt, _ = bench(args, plain)
            cr, ct, extra = bench(args, custom, args.depart_at)
            plain_routes.append(pr); custom_routes.append(cr); plain_tables.append(pt); custom_tables.append(ct)
            print(f"round {r + 1}: customize {wall:.3f} s {peak} KB; route p50 CH {pr:.3f} ms, customized {cr:.3f} ms; "
                  f"table {args.matrix}x{args.matrix} CH {pt:.1f} ms, customized {ct:.1f} ms", file=sys.stderr)
            if args.depart_at:
                timed_routes.append(extra[0]); timed_tables.append(extra[1][0] / extra[1][1])
                print(f"  leaving at {args.depart_at}: route p50 {extra[0]:.3f} ms; engine table {extra[1][0]:.1f} ms "
                      f"against {extra[1][1]:.1f} ms without a time", file=sys.stderr)
        m = statistics.median
        print(f"{os.path.basename(args.extract)} {args.mode}, {args.rounds} rounds, medians:")
        print(f"  customize end to end: {m(walls):.3f} s (min {min(walls):.3f}, max {max(walls):.3f}), "
              f"peak {m(peaks) / 1024:.0f} MB; first (with ordering): {first:.3f} s")
        print(f"  route p50 ({args.queries} pairs): CH {m(plain_routes):.3f} ms, customized {m(custom_routes):.3f} ms, "
              f"x{m(custom_routes) / m(plain_routes):.2f}")
        print(f"  table {args.matrix}x{args.matrix}: CH {m(plain_tables):.1f} ms, customized {m(custom_tables):.1f} ms, "
              f"x{m(custom_tables) / m(plain_tables):.2f}")
        if args.depart_at:
            print(f"  leaving at {args.depart_at}, customized graph: route p50 {m(timed_routes):.3f} ms "
                  f"(x{m(timed_routes) / m(custom_routes):.2f} its untimed, x{m(timed_routes) / m(plain_routes):.2f} the import's CH); "
                  f"engine table x{m(timed_tables):.1f} the same table without a time")
        for line in first_err.splitlines():
            if "hierarchy:" in line or "historical speeds:" in line:
                print("  " + line.strip())
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
