#!/usr/bin/env python3
"""A week of historical speeds from a segment speed file, for benchmarks and tests of `customize --historical-speeds`.

    scripts/week_speeds.py SPEEDS.csv WEEK.csv [--rush 0.5 | --rush-kmh K] [--night 1.1]
    scripts/week_speeds.py --osm EXTRACT.osm.pbf WEEK.csv [--share 0.3] [--seed 1] [--rush 0.5] [--night 1.1]

Each row `from,to,kmh[,…]` of SPEEDS (OSRM's segment speed format) becomes two rows of WEEK: the weekday rush
hours (07:00-09:30 and 16:30-19:00) at `rush` times the speed (or at `rush-kmh` km/h: queues, slower than the
map's speeds almost everywhere), and nights (22:00-06:00) at `night` times it (`--night 0`: no night rows). Rows
at speed 0 are left out (a historical speed is above 0). Standard library only.

With --osm, the segments are those of a random `share` of the extract's motorways to tertiary roads (both ways),
their speed the car profile's speed for the road class: a week for an extract no speed file covers (the stitched
8.7M-node one). Needs pyosmium (Debian's python3-osmium).
"""
import argparse
import csv


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("speeds", nargs="?")
    ap.add_argument("week")
    ap.add_argument("--osm")
    ap.add_argument("--share", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rush", type=float, default=0.5)
    ap.add_argument("--rush-kmh", type=float)
    ap.add_argument("--night", type=float, default=1.1)
    args = ap.parse_args()
    if args.osm:
        segments = osm_segments(args.osm, args.share, args.seed)
    elif args.speeds:
        segments = speed_rows(args.speeds)
    else:
        ap.error("give a speed file or --osm")
    rows = 0
    with open(args.week, "w") as out:
        for segment, kmh in segments:
            rush = args.rush_kmh if args.rush_kmh else max(1.0, kmh * args.rush)
            out.write(f"{segment},{rush:.1f},Mo-Fr 07:00-09:30,16:30-19:00\n")
            rows += 1
            if args.night > 0:
                out.write(f"{segment},{min(1000.0, kmh * args.night):.1f},Mo-Su 22:00-06:00\n")
                rows += 1
    print(f"{rows} rows written to {args.week}")


def speed_rows(path):
    """(from,to) and km/h of each row of a segment speed file."""
    with open(path, newline="") as source:
        for row in csv.reader(source):
            if len(row) < 3 or not row[2].strip():
                continue
            kmh = float(row[2])
            if kmh <= 0:
                continue
            yield f"{row[0].strip()},{row[1].strip()}", kmh


# car.lua's speeds by class (km/h).
CLASS_SPEEDS = {"motorway": 90, "trunk": 85, "primary": 65, "secondary": 55, "tertiary": 40}


def osm_segments(path, share, seed):
    """(from,to) and the class's km/h of each segment, both ways, of a random share of the main roads."""
    import random
    import osmium

    pick = random.Random(seed)
    found = []

    class Ways(osmium.SimpleHandler):
        def way(self, w):
            kmh = CLASS_SPEEDS.get(w.tags.get("highway", ""))
            if kmh is None or pick.random() >= share:
                return
            nodes = [n.ref for n in w.nodes]
            for a, b in zip(nodes, nodes[1:]):
                found.append((f"{a},{b}", kmh))
                found.append((f"{b},{a}", kmh))

    Ways().apply_file(path)
    return found


if __name__ == "__main__":
    main()
