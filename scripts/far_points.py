#!/usr/bin/env python3
"""Requests with points far from every road, as issue 27 sent them, and the server CPU each one takes.

    scripts/far_points.py --graph DIR [--seed 1] [-- extra serve options…]

Starts `wayfinder serve` on a free loopback port (with --max-url-length 100000, so that a 200-point table fits)
and sends: a 200-point table, a 100-point trip and a 50-point route of random points in a 1° square of the
Atlantic, /nearest?number=100 there, a 100-point match with radiuses=1e300, and the isochrone of 100 km on foot
at a 20 m resolution. Prints each answer's status, wall time and the server's CPU time for it. Standard library
only.
"""
import argparse
import os
import random
import time
import urllib.error
import urllib.request

from soak import bounds, start_server


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graph", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("extra", nargs="*", help="more options for serve, after --")
    args = parser.parse_args()
    process, port = start_server(args.graph, ["--max-url-length", "100000"] + args.extra)
    base = f"http://127.0.0.1:{port}"
    west, south, east, north = bounds(port)

    def cpu():
        fields = open(f"/proc/{process.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    rng = random.Random(args.seed)

    def sea(n):
        return ";".join(f"{-30 + rng.random():.6f},{40 + rng.random():.6f}" for _ in range(n))

    requests = [
        ("table, 200 points at sea", "/table/v1/driving/" + sea(200)),
        ("trip, 100 points at sea", "/trip/v1/driving/" + sea(100)),
        ("route, 50 points at sea", "/route/v1/driving/" + sea(50) + "?overview=false"),
        ("nearest, 100 at sea", "/nearest/v1/driving/-30,40?number=100"),
        ("match, 100 at sea, radiuses=1e300", "/match/v1/driving/" + sea(100) + "?radiuses=" + ";".join(["1e300"] * 100)),
        ("isochrone, 100 km on foot at 20 m", "/isochrone/v1/walking/{}?contours_meters=100000,99999,99998,99997"
         "&resolution=20&denoise=0&polygons=true"),
    ]
    try:
        for name, path in requests:
            # The isochrone starts at the graph's centre.
            path = path.replace("{}", f"{(west + east) / 2:.6f},{(south + north) / 2:.6f}")
            before, started = cpu(), time.monotonic()
            try:
                response = urllib.request.urlopen(base + path, timeout=120)
                status, body = response.status, response.read()
            except urllib.error.HTTPError as error:
                status, body = error.code, error.read()
            print(f"{name}: {status}, wall {time.monotonic() - started:.2f} s, server CPU {cpu() - before:.2f} s, "
                  f"{len(body)} bytes {body[:90]!r}")
    finally:
        process.terminate()
        process.wait(timeout=30)


if __name__ == "__main__":
    main()
