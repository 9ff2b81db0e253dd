"""python -m wayfinder_cluster table --scheduler tcp://host:8786 --graph DIR --sources FILE [...] --output DIR

Without --scheduler, a LocalCluster with --workers processes (one thread each) runs the table on this machine.
Exit codes as the CLI's: 0 ok, 1 usage, 2 bad input (a point, the graph, the output directory)."""

import argparse
import sys

from .table import TableError, TableOptions, distributed_table


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wayfinder_cluster", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    table = commands.add_parser("table", help="a sources x destinations table as a Parquet dataset")
    table.add_argument("--scheduler", help="address of a running Dask scheduler (default: a local cluster)")
    table.add_argument("--workers", type=int, default=2, help="local cluster: worker processes (default 2)")
    table.add_argument("--graph", required=True, help="graph directory, as the workers see it")
    table.add_argument("--mode", default="driving", choices=["driving", "walking"])
    table.add_argument("--sources", required=True, help="file of lat,lon lines, names or GeoJSON points")
    table.add_argument("--destinations", help="likewise (default: the sources)")
    table.add_argument("--output", required=True, help="dataset directory to create (absent or empty)")
    table.add_argument("--block-rows", type=int, help="sources per task (default: chosen from the table's size)")
    table.add_argument("--threads", type=int, default=1, help="threads of each task's wayfinder (default 1)")
    table.add_argument("--wayfinder", default="wayfinder", help="the wayfinder binary, as the workers see it")
    table.add_argument("--radius", help="snapping radius in metres, or unlimited")
    table.add_argument("--exclude", help="toll,motorway,ferry")
    table.add_argument("--gather", action="store_true",
                       help="send parts back to this client instead of writing them on the workers")
    args = parser.parse_args(argv)

    from dask.distributed import Client, LocalCluster

    def read(path):
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except OSError as e:
            raise TableError(f"cannot read {path}: {e.strerror}")

    options = TableOptions(graph=args.graph, mode=args.mode, wayfinder=args.wayfinder, threads=args.threads,
                           radius=args.radius, exclude=args.exclude)
    try:
        sources = read(args.sources)
        destinations = read(args.destinations) if args.destinations else None
        if args.scheduler:
            client = Client(args.scheduler)
        else:
            client = Client(LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                         dashboard_address=None))
        with client:
            result = distributed_table(client, options, sources, args.output, destinations=destinations,
                                       block_rows=args.block_rows, parts_on_workers=not args.gather)
    except TableError as e:
        print(f"wayfinder_cluster: {e}", file=sys.stderr)
        return 2
    for line in result.warnings:
        print(line, file=sys.stderr)
    print(f"{result.sources} x {result.destinations} table in {result.blocks} blocks of {result.block_rows} rows, "
          f"{result.seconds:.2f} s, {result.unreachable} unreachable cells: {result.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
