#!/usr/bin/env python3
"""A week of historical speeds from a segment speed file, for benchmarks and tests of `customize --historical-speeds`.

    scripts/week_speeds.py SPEEDS.csv WEEK.csv [--rush 0.5 | --rush-kmh K] [--night 1.1]

Each row `from,to,kmh[,…]` of SPEEDS (OSRM's segment speed format) becomes two rows of WEEK: the weekday rush
hours (07:00-09:30 and 16:30-19:00) at `rush` times the speed (or at `rush-kmh` km/h: queues, slower than the
map's speeds almost everywhere), and nights (22:00-06:00) at `night` times it (`--night 0`: no night rows). Rows
at speed 0 are left out (a historical speed is above 0). Standard library only.
"""
import argparse
import csv


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("speeds")
    ap.add_argument("week")
    ap.add_argument("--rush", type=float, default=0.5)
    ap.add_argument("--rush-kmh", type=float)
    ap.add_argument("--night", type=float, default=1.1)
    args = ap.parse_args()
    rows = 0
    with open(args.speeds, newline="") as source, open(args.week, "w") as out:
        for row in csv.reader(source):
            if len(row) < 3 or not row[2].strip():
                continue
            kmh = float(row[2])
            if kmh <= 0:
                continue
            segment = f"{row[0].strip()},{row[1].strip()}"
            rush = args.rush_kmh if args.rush_kmh else max(1.0, kmh * args.rush)
            out.write(f"{segment},{rush:.1f},Mo-Fr 07:00-09:30,16:30-19:00\n")
            rows += 1
            if args.night > 0:
                out.write(f"{segment},{min(1000.0, kmh * args.night):.1f},Mo-Su 22:00-06:00\n")
                rows += 1
    print(f"{rows} rows written to {args.week}")


if __name__ == "__main__":
    main()
