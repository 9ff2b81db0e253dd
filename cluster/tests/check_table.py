"""The Dask table against the single-process CLI, cell for cell, on a LocalCluster of two workers; with --kill,
one worker is killed with SIGKILL once the first blocks are in, and the table must still come out whole and equal.

    python3 cluster/tests/check_table.py --wayfinder BIN --graph DIR --points FILE [--names N] [--kill]

Prints one line of findings and exits 0 when they hold, 1 when one does not (the line says which)."""

import argparse
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from wayfinder_cluster import TableOptions, distributed_table, read_matrix  # noqa: E402


def fail(message: str) -> None:
    print(f"FAIL: {message}")
    sys.exit(1)


def main() -> None:
    scratch = tempfile.mkdtemp(prefix="wayfinder-dask-check-")
    try:
        check(scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def check(scratch: str) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wayfinder", required=True)
    parser.add_argument("--graph", required=True)
    parser.add_argument("--points", required=True, help="lat,lon lines")
    parser.add_argument("--names", nargs="*", default=[], help="place names put among the points")
    parser.add_argument("--block-rows", type=int, default=100)
    parser.add_argument("--kill", action="store_true")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--engine", default="auto", choices=["auto", "library", "cli"],
                        help="library: tasks call the wayfinder package in-process; cli: wayfinder matrix per block")
    args = parser.parse_args()

    lines = [l for l in open(args.points).read().splitlines() if l and not l.startswith("lat")]
    # Names among the coordinates: the cluster must resolve them exactly as the CLI does (near the point before).
    for k, name in enumerate(args.names):
        lines.insert(1 + k * (len(lines) // max(1, len(args.names))), name)
    points = os.path.join(scratch, "points.csv")
    with open(points, "w") as f:
        f.write("\n".join(lines) + "\n")

    single = os.path.join(scratch, "single.pb")
    with open(single, "wb") as out:
        done = subprocess.run([args.wayfinder, "matrix", "--graph", args.graph, "--sources", points,
                               "--format", "protobuf"], stdout=out, stderr=subprocess.PIPE, timeout=args.timeout)
    if done.returncode != 0:
        fail(f"wayfinder matrix exited with {done.returncode}: {done.stderr.decode()[-300:]}")
    expected = read_matrix(single)

    from dask.distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
                           silence_logs=40)
    client = Client(cluster)
    output = os.path.join(scratch, "table")
    options = TableOptions(graph=args.graph, wayfinder=args.wayfinder, engine=args.engine)
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["result"] = distributed_table(client, options, open(points).read(), output,
                                                  block_rows=args.block_rows)
        except BaseException as e:  # reported below
            outcome["error"] = e

    worker_pids_before = set(client.run(os.getpid).values())
    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    killed = None
    blocks = -(-len(lines) // args.block_rows)
    if args.kill:
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline and runner.is_alive():
            parts = glob.glob(output + ".incomplete-*/part-*.parquet")
            if parts:
                killed = (len(parts), sorted(worker_pids_before)[0])
                os.kill(killed[1], signal.SIGKILL)
                break
            time.sleep(0.01)
        if killed is None:
            fail("the table finished before a worker could be killed")
    runner.join(args.timeout)
    if runner.is_alive():
        fail(f"the table did not finish in {args.timeout} s")
    if "error" in outcome:
        fail(f"the table failed: {outcome['error']!r}")
    result = outcome["result"]
    got = read_matrix(output)
    for what, a, b in (("durations", got[0], expected[0]), ("distances", got[1], expected[1])):
        if a.shape != b.shape:
            fail(f"{what}: shape {a.shape} against {b.shape}")
        if not np.array_equal(a, b, equal_nan=True):
            differ = int((~((a == b) | (np.isnan(a) & np.isnan(b)))).sum())
            fail(f"{what}: {differ} cells differ from the single-process table")
    files = sorted(os.listdir(output))
    if any(not (f.startswith("part-") and f.endswith(".parquet")) and f not in ("waypoints.parquet", "table.json")
           for f in files):
        fail(f"the dataset holds more than its parts: {files}")
    if sum(f.startswith("part-") for f in files) != result.blocks:
        fail(f"{sum(f.startswith('part-') for f in files)} parts for {result.blocks} blocks")
    waypoints = pq.read_table(os.path.join(output, "waypoints.parquet")).to_pydict()
    if len(waypoints["role"]) != 2 * len(lines):
        fail(f"{len(waypoints['role'])} waypoints for {len(lines)} points")
    in_process = json.load(open(os.path.join(output, "table.json")))["in_process_blocks"]
    report = (f"{got[0].shape[0]}x{got[0].shape[1]} identical to the CLI (durations and distances, "
              f"{int(np.isnan(got[0]).sum())} unreachable), {result.blocks} blocks ({in_process} in-process), "
              f"{result.seconds:.1f} s")
    if killed:
        worker_pids_after = set(client.run(os.getpid).values())
        if killed[1] in worker_pids_after:
            fail("the killed worker is still listed")
        if killed[0] >= blocks:
            fail("every block was in before the kill")
        report += (f"; worker {killed[1]} killed with {killed[0]}/{blocks} blocks in, "
                   f"{len(worker_pids_after)} workers after")
    client.close()
    cluster.close()
    print("OK: " + report)


if __name__ == "__main__":
    main()
