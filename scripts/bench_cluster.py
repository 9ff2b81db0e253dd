#!/usr/bin/env python3
"""The Dask table (cluster/) against the single-process CLI in the same run, on the same points.

    scripts/bench_cluster.py --graph DIR --points FILE [--rounds 3] [--workers 2] [--block-rows 2500,1250]

Each round runs, alternating: `wayfinder matrix --format protobuf` to a file (every core), then the table on a
LocalCluster of --workers single-threaded workers (started once, before the rounds) for each block size, written
as a Parquet dataset. Prints each run's wall time and peak RSS, then medians and the ratio to the CLI."""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cluster"))

from wayfinder_cluster import TableOptions, distributed_table  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--graph", required=True)
    parser.add_argument("--points", required=True)
    parser.add_argument("--wayfinder", default=os.path.join(os.path.dirname(__file__), "..", ".build/release/wayfinder"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--block-rows", default="0", help="comma-separated; 0 = the package's default")
    parser.add_argument("--scratch", default=None, help="directory for the outputs (default: a temporary one)")
    args = parser.parse_args()
    wayfinder = os.path.abspath(args.wayfinder)
    scratch = tempfile.mkdtemp(prefix="wayfinder-bench-cluster-", dir=args.scratch)
    points = open(args.points).read()
    count = len([l for l in points.splitlines() if l and not l.startswith("lat")])

    from dask.distributed import Client, LocalCluster
    started = time.monotonic()
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
                           silence_logs=40)
    client = Client(cluster)
    print(f"local cluster of {args.workers} workers up in {time.monotonic() - started:.2f} s (not counted)")
    options = TableOptions(graph=args.graph, wayfinder=wayfinder)
    sizes = [int(s) for s in args.block_rows.split(",")]
    times: dict[str, list[float]] = {"cli": []}
    try:
        for r in range(args.rounds):
            out = os.path.join(scratch, "cli.pb")
            t = time.monotonic()
            with open(out, "wb") as f:
                subprocess.run(["/usr/bin/time", "-f", "%M", "-o", os.path.join(scratch, "rss"), wayfinder, "matrix",
                                "--graph", args.graph, "--sources", args.points, "--format", "protobuf"],
                               stdout=f, check=True)
            times["cli"].append(time.monotonic() - t)
            rss = int(open(os.path.join(scratch, "rss")).read().split()[-1])
            print(f"round {r + 1}: cli {times['cli'][-1]:.2f} s, {rss / 1024:.0f} MB peak, "
                  f"{os.path.getsize(out) / 1e6:.0f} MB protobuf")
            os.remove(out)
            for rows in sizes:
                output = os.path.join(scratch, "dask")
                result = distributed_table(client, options, points, output, block_rows=rows or None)
                key = f"dask {result.block_rows} rows"
                times.setdefault(key, []).append(result.seconds)
                size = sum(os.path.getsize(os.path.join(output, p)) for p in os.listdir(output))
                print(f"round {r + 1}: {key} ({result.blocks} blocks) {result.seconds:.2f} s, "
                      f"{size / 1e6:.0f} MB parquet")
                shutil.rmtree(output)
        # Peak RSS of each worker process and of the largest `wayfinder matrix` it ran.
        peaks = client.run(lambda: (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                                    resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
        for worker, (own, child) in sorted(peaks.items()):
            print(f"worker {worker}: peak RSS {own / 1024:.0f} MB, its wayfinder processes {child / 1024:.0f} MB")
    finally:
        client.close()
        cluster.close()
        shutil.rmtree(scratch, ignore_errors=True)
    base = statistics.median(times["cli"])
    print(f"\n{count} x {count} table, medians over {args.rounds} rounds:")
    for key, values in times.items():
        median = statistics.median(values)
        print(f"  {key:>20}: {median:6.2f} s  ({median / base:.2f}x the CLI; {count * count / median / 1e6:.1f} M cells/s)")
    print(f"client peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
