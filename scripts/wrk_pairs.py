#!/usr/bin/env python3
"""A wrk script that cycles through random route requests: consecutive points of a `wayfinder bench
--sample-points` file, paired.

    wayfinder bench --graph G --sample-points 400 --seed 3 > points.csv
    scripts/wrk_pairs.py points.csv "steps=true&overview=full" [--profile driving] > pairs.lua
    wrk -t1 -c4 -d10s -s pairs.lua http://127.0.0.1:5000
"""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("points")
parser.add_argument("query", help="the request's options, e.g. steps=false&overview=false")
parser.add_argument("--profile", default="driving")
args = parser.parse_args()
points = [line.split(",") for line in open(args.points).read().split() if not line.startswith("lat")]
paths = [f"/route/v1/{args.profile}/{a[1]},{a[0]};{b[1]},{b[0]}?{args.query}"
         for a, b in zip(points[0::2], points[1::2])]
print("paths = {" + ",".join(f'"{p}"' for p in paths) + "}")
print("i = 0")
print("request = function()\n  i = (i % #paths) + 1\n  return wrk.format(\"GET\", paths[i])\nend")
