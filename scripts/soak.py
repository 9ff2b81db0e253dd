#!/usr/bin/env python3
"""Soak test: mixed route/table/nearest/geocode/isochrone/trip/match load on a loopback `wayfinder serve` for a
bounded time.

    scripts/soak.py --graph graphs/helsinki --minutes 10 [--connections 4] [--seed 1] [--rss-log FILE]

Starts the server on a free loopback port, sends requests over keep-alive connections until the time is up,
and samples the server's resident memory every few seconds (written to --rss-log as "seconds,KB" lines). Passes
(exit 0) when no request failed and the memory did not grow: the median RSS of the last tenth of the run is
within 10 % of the median of the tenth after the warm-up (the first tenth), and the least-squares slope after the
warm-up is under 2 % per 10 minutes. The peak is printed, not judged: isochrones and trips in flight on four
connections at once raise it for a moment. Prints the figures that RELIABILITY.md records. Standard library
only.
"""
import argparse
import http.client
import json
import os
import random
import re
import subprocess
import sys
import threading
import time

BINARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "release", "wayfinder")


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def start_server(graph, options=("--max-table-size", "200")):
    process = subprocess.Popen([BINARY, "serve", "--graph", graph, "--port", "0", "--quiet", *options],
                               stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    line = process.stderr.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if not match:
        process.kill()
        sys.exit(f"soak: the server did not start: {line.strip()}")
    threading.Thread(target=lambda: process.stderr.read(), daemon=True).start()
    return process, int(match.group(1))


def bounds(port):
    # The server listens before its graphs are loaded: /health says 503 until they are.
    for _ in range(600):
        try:
            probe = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            probe.request("GET", "/health")
            if probe.getresponse().status == 200:
                break
        except OSError:
            pass
        time.sleep(0.1)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/graph")
    west, south, east, north = json.loads(connection.getresponse().read())["bounds"]
    return west, south, east, north


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graph", required=True)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-requests", type=int, default=10_000_000, help="stop early after this many")
    parser.add_argument("--rss-log", help="write the RSS samples here, one 'seconds,KB' line each")
    args = parser.parse_args()

    process, port = start_server(args.graph)
    west, south, east, north = bounds(port)
    words = ["katu", "tie", "kappeli", "tori", "restaurant", "pharmacy", "Mannerheimintie", "Kamppi", "school",
             "rua", "avenida", "praça", "北京", "street", "park"]
    deadline = time.monotonic() + args.minutes * 60
    lock = threading.Lock()
    counts = {"route": 0, "table": 0, "nearest": 0, "geocode": 0, "isochrone": 0, "trip": 0, "match": 0}
    errors = []
    latencies = []

    def point(rng):
        return f"{rng.uniform(west, east):.6f},{rng.uniform(south, north):.6f}"

    def worker(index):
        rng = random.Random(args.seed * 1000 + index)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while time.monotonic() < deadline:
            with lock:
                if sum(counts.values()) >= args.max_requests:
                    return
            kind = rng.choices(list(counts), weights=[5, 1, 3, 2, 1, 1, 1])[0]
            mode = rng.choice(["driving", "walking"])
            if kind == "route":
                path = f"/route/v1/{mode}/{point(rng)};{point(rng)}?steps=true&overview=full"
            elif kind == "table":
                path = f"/table/v1/{mode}/" + ";".join(point(rng) for _ in range(40)) + "?annotations=duration,distance"
            elif kind == "nearest":
                path = f"/nearest/v1/{mode}/{point(rng)}?number=3"
            elif kind == "isochrone":
                metric = rng.choice(["contours_minutes=5,10", "contours_meters=1000,2000"])
                path = f"/isochrone/v1/{mode}/{point(rng)}?{metric}&polygons=true&denoise={rng.choice([0, 1])}"
            elif kind == "trip":
                path = f"/trip/v1/{mode}/" + ";".join(point(rng) for _ in range(rng.randint(3, 12))) + "?steps=true"
            elif kind == "match":
                # A walk along a line with fixes 30 m apart, 10 s apart.
                lon0, lat0 = rng.uniform(west, east), rng.uniform(south, north)
                heading = rng.uniform(0, 6.283)
                fixes = [(lon0 + k * 0.00035 * __import__("math").cos(heading), lat0 + k * 0.00027 * __import__("math").sin(heading))
                         for k in range(rng.randint(5, 40))]
                path = (f"/match/v1/{mode}/" + ";".join(f"{x:.6f},{y:.6f}" for x, y in fixes)
                        + "?timestamps=" + ";".join(str(1_700_000_000 + 10 * k) for k in range(len(fixes))) + "&steps=true")
            else:
                lat, lon = rng.uniform(south, north), rng.uniform(west, east)
                query = "%20".join(rng.sample(words, 2)).encode("utf-8")
                path = "/geocode?q=" + "".join(chr(b) if b < 128 else f"%{b:02X}" for b in query) + f"&near={lat:.5f},{lon:.5f}"
            started = time.monotonic()
            try:
                connection.request("GET", path)
                response = connection.getresponse()
                body = response.read()
                code = json.loads(body).get("code") if body.startswith(b"{\"code\"") else None
                # A route between random points may be NoRoute (an island): an answer, not a failure.
                # A trace off the roads may match nothing (NoMatch), and random points may not all connect (NoTrips).
                ok = response.status == 200 or (response.status == 400 and code in ("NoRoute", "NoSegment", "NoMatch", "NoTrips"))
            except Exception as error:  # noqa: BLE001 - any failure of the exchange counts
                ok, response = False, None
                body = str(error).encode()
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            with lock:
                counts[kind] += 1
                latencies.append(time.monotonic() - started)
                if not ok:
                    errors.append((kind, response.status if response else None, body[:200]))

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(args.connections)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    samples = []
    warm_until = started + args.minutes * 60 / 10
    while any(thread.is_alive() for thread in threads):
        time.sleep(2)
        samples.append((time.monotonic() - started, rss_kb(process.pid)))
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    process.terminate()
    process.wait(timeout=30)

    if args.rss_log:
        with open(args.rss_log, "w") as log:
            log.writelines(f"{t:.1f},{kb}\n" for t, kb in samples)
    warm = [kb for t, kb in samples if t <= warm_until - started] or [samples[0][1]]
    after = [kb for t, kb in samples if t > warm_until - started] or [samples[-1][1]]
    baseline, peak = warm[-1], max(after)
    total = sum(counts.values())
    latencies.sort()
    print(f"soak: {elapsed:.0f} s, {total} requests ({total / elapsed:.0f}/s over {args.connections} connections): "
          + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print(f"soak: latency p50 {latencies[len(latencies) // 2] * 1000:.2f} ms, p99 {latencies[int(len(latencies) * 0.99)] * 1000:.2f} ms")
    print(f"soak: errors {len(errors)}; RSS after warm-up {baseline} KB, peak after {peak} KB "
          f"({100 * (peak - baseline) / baseline:+.1f} %), last {samples[-1][1]} KB")
    late = [(t, kb) for t, kb in samples if t > warm_until - started]
    slope = 0.0
    if len(late) >= 2:
        mean_t = sum(t for t, _ in late) / len(late)
        mean_kb = sum(kb for _, kb in late) / len(late)
        slope = sum((t - mean_t) * (kb - mean_kb) for t, kb in late) / max(1e-9, sum((t - mean_t) ** 2 for t, _ in late))
        print(f"soak: RSS slope after warm-up {slope * 60:+.1f} KB/min ({100 * slope * 600 / baseline:+.2f} % per 10 min)")
    for error in errors[:5]:
        print("soak: error", error)
    tenth = max(1, len(samples) // 10)
    settled = sorted(kb for _, kb in samples[tenth:2 * tenth])[len(samples[tenth:2 * tenth]) // 2]
    final = sorted(kb for _, kb in samples[-tenth:])[len(samples[-tenth:]) // 2]
    print(f"soak: median RSS after warm-up {settled} KB, in the last tenth {final} KB ({100 * (final - settled) / settled:+.1f} %)")
    slope_ok = len(late) < 2 or slope * 600 < 0.02 * baseline
    flat = final <= settled * 1.10 and slope_ok
    if errors or not flat:
        sys.exit("soak: FAILED" + ("" if flat else " (memory grew)"))
    print("soak: passed")


if __name__ == "__main__":
    main()
