"""The Python package against its baselines, in one run (the machine is shared: rounds alternate, medians reported).

    python3 scripts/bench_python.py --graph DIR [--wayfinder BIN] [--pairs 300] [--table 10000] [--dask 5000]

With the package installed (pip install the wheel), or from a checkout with PYTHONPATH=python and
WAYFINDER_LIBRARY=.build/release/libWayfinderC.so:
  routes   engine.route(pair, steps=True) against `wayfinder bench-library` (the same pairs through the Swift
           library, in-process: Swift values then their JSON, and the JSON alone): medians per call and ratios;
  table    Engine(graph) + engine.table(points) for an N x N table against `wayfinder matrix --format protobuf`
           for the same points (written to /dev/null), wall time of each as a user runs it: into new arrays
           (float64, and float32), and into arrays reused from an earlier table (out=);
  dask     distributed_table on a LocalCluster of two one-thread workers with tasks in-process (the package) and
           tasks running `wayfinder matrix` per block (the CLI), the same table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import wayfinder


def sample(binary: str, graph: str, count: int, seed: int) -> list[tuple[float, float]]:
    out = subprocess.run([binary, "bench", "--graph", graph, "--sample-points", str(count), "--seed", str(seed)],
                         capture_output=True, text=True, check=True).stdout
    return [tuple(float(v) for v in line.split(",")) for line in out.splitlines()[1:] if line]


def bench_routes(binary: str, graph: str, pairs: list, rounds: int, scratch: str) -> dict:
    path = os.path.join(scratch, "pairs.csv")
    with open(path, "w") as f:
        f.writelines(f"{a[0]!r},{a[1]!r},{b[0]!r},{b[1]!r}\n" for a, b in pairs)
    swift, json_only, c_abi, python = [], [], [], []
    with wayfinder.Engine(graph, modes=["driving"]) as engine:
        for pair in pairs[:20]:  # warm both the page cache and the engine's lazily built tables
            try:
                engine.route(pair)
            except wayfinder.WayfinderError:
                pass
        for _ in range(rounds):
            out = subprocess.run([binary, "bench-library", "--graph", graph, "--pairs", path, "--rounds", "1"],
                                 capture_output=True, text=True, check=True).stdout
            measured = json.loads(out)
            swift.append(measured["median_us"])
            json_only.append(measured["json_only_median_us"])
            c_abi.append(measured["c_median_us"])
            times = []
            for pair in pairs:
                started = time.perf_counter_ns()
                try:
                    engine.route(pair, steps=True)
                except wayfinder.WayfinderError:
                    pass
                times.append((time.perf_counter_ns() - started) / 1000)
            python.append(statistics.median(times))
    s, j, c, p = (statistics.median(x) for x in (swift, json_only, c_abi, python))
    return {"pairs": len(pairs), "rounds": rounds, "swift_median_us": round(s, 1), "python_median_us": round(p, 1),
            "ratio": round(p / s, 3), "swift_json_only_median_us": round(j, 1), "ratio_to_json_only": round(p / j, 3),
            "c_abi_from_swift_median_us": round(c, 1)}


def bench_table(binary: str, graph: str, points: list, rounds: int, scratch: str) -> dict:
    path = os.path.join(scratch, "points.csv")
    with open(path, "w") as f:
        f.writelines(f"{lat!r},{lon!r}\n" for lat, lon in points)
    cli, python, single, reused = [], [], [], []
    n = len(points)
    arrays = (np.empty((n, n)), np.empty((n, n)))
    arrays[0].fill(0)
    arrays[1].fill(0)
    for _ in range(rounds):
        started = time.perf_counter()
        with open(os.devnull, "wb") as sink:
            subprocess.run([binary, "matrix", "--graph", graph, "--sources", path, "--format", "protobuf"],
                           stdout=sink, stderr=subprocess.DEVNULL, check=True)
        cli.append(time.perf_counter() - started)
        # New arrays: 1.6 GB the process has not touched before, as a one-off script has it.
        started = time.perf_counter()
        with wayfinder.Engine(graph, modes=["driving"]) as engine:
            table = engine.table(points)
        python.append(time.perf_counter() - started)
        del table
        # New float32 arrays: half the memory.
        started = time.perf_counter()
        with wayfinder.Engine(graph, modes=["driving"]) as engine:
            table = engine.table(points, dtype=np.float32)
        single.append(time.perf_counter() - started)
        del table
        # Arrays reused (out=), as a batch of tables has them.
        started = time.perf_counter()
        with wayfinder.Engine(graph, modes=["driving"]) as engine:
            engine.table(points, out=arrays)
        reused.append(time.perf_counter() - started)
    c, p, f, r = (statistics.median(x) for x in (cli, python, single, reused))
    return {"size": n, "rounds": rounds, "cli_s": round(c, 2), "python_new_arrays_s": round(p, 2),
            "ratio_new_arrays": round(p / c, 3), "python_new_float32_arrays_s": round(f, 2),
            "ratio_new_float32": round(f / c, 3), "python_reused_arrays_s": round(r, 2), "ratio_reused": round(r / c, 3)}


def bench_dask(binary: str, graph: str, points: list, rounds: int, scratch: str) -> dict:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cluster"))
    from dask.distributed import Client, LocalCluster
    from wayfinder_cluster import TableOptions, distributed_table
    text = "".join(f"{lat!r},{lon!r}\n" for lat, lon in points)
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, silence_logs=40)
    client = Client(cluster)
    seconds: dict = {"library": [], "cli": []}
    try:
        for k in range(rounds):
            for engine in ("library", "cli"):
                options = TableOptions(graph=graph, wayfinder=binary, engine=engine)
                result = distributed_table(client, options, text, os.path.join(scratch, f"t-{engine}-{k}"),
                                           block_rows=max(1, len(points) // 20))
                seconds[engine].append(result.seconds)
    finally:
        client.close()
        cluster.close()
    lib, cli = statistics.median(seconds["library"]), statistics.median(seconds["cli"])
    return {"size": len(points), "blocks": 20, "rounds": rounds, "in_process_s": round(lib, 2),
            "cli_per_block_s": round(cli, 2), "ratio": round(lib / cli, 3)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--graph", required=True)
    parser.add_argument("--wayfinder", default=".build/release/wayfinder")
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--table", type=int, default=10000)
    parser.add_argument("--dask", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--only", choices=["routes", "table", "dask"])
    args = parser.parse_args()
    binary = os.path.abspath(args.wayfinder)
    points = sample(binary, args.graph, max(2 * args.pairs, args.table, args.dask), args.seed)
    with tempfile.TemporaryDirectory(prefix="wayfinder-bench-python-") as scratch:
        if args.only in (None, "routes"):
            pairs = list(zip(points[0:2 * args.pairs:2], points[1:2 * args.pairs:2]))
            print("routes", json.dumps(bench_routes(binary, args.graph, pairs, args.rounds, scratch)), flush=True)
        if args.only in (None, "table") and args.table:
            print("table", json.dumps(bench_table(binary, args.graph, points[:args.table], args.rounds, scratch)),
                  flush=True)
        if args.only in (None, "dask") and args.dask:
            print("dask", json.dumps(bench_dask(binary, args.graph, points[:args.dask], args.rounds, scratch)),
                  flush=True)


if __name__ == "__main__":
    main()
