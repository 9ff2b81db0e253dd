"""python -m wayfinder_cluster table --scheduler tcp://host:8786 --graph DIR --sources FILE [...] --output DIR

Without --scheduler, a LocalCluster with --workers processes (one thread each) runs the table on this machine.
Exit codes: 0 ok; 2 a bad argument or input (an option's value, a point, the graph, the output directory);
1 anything else, such as a missing Python package."""

import argparse
import math
import os
import shutil
import sys

# dask, pyarrow and numpy are imported only once the arguments are read: --help and argument errors must work on a
# machine without them, and a missing one must be one line, not a traceback.
REQUIREMENTS = 'pip install "dask[distributed]" pyarrow protobuf'
# The package to install for a module that failed to import.
PACKAGES = {"google": "protobuf", "dask": "dask[distributed]", "distributed": "dask[distributed]"}


def _at_least_one(text: str) -> int:
    # Refused here, not at run time: 0 workers waits forever for a worker, and a block of 0 or fewer rows is no
    # block (0 fell back to the default, negative numbers failed after the cluster had started).
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _radius(text: str) -> str:
    # As `wayfinder matrix --radius` reads it, so that a bad value fails before the cluster starts.
    if text == "unlimited":
        return text
    try:
        metres = float(text)
    except ValueError:
        metres = math.nan
    if text != text.strip() or "_" in text or not (metres > 0 and math.isfinite(metres)):
        raise argparse.ArgumentTypeError(f"must be a positive number of metres or 'unlimited', not {text!r}")
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wayfinder_cluster", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    table = commands.add_parser("table", help="a sources x destinations table as a Parquet dataset")
    table.add_argument("--scheduler", help="address of a running Dask scheduler (default: a local cluster)")
    table.add_argument("--workers", type=_at_least_one, default=2, help="local cluster: worker processes (default 2)")
    table.add_argument("--graph", required=True, help="graph directory, as the workers see it")
    table.add_argument("--mode", default="driving", choices=["driving", "walking", "cycling"])
    table.add_argument("--sources", required=True, help="file of lat,lon lines, names or GeoJSON points")
    table.add_argument("--destinations", help="likewise (default: the sources)")
    table.add_argument("--output", required=True, help="dataset directory to create (absent or empty)")
    table.add_argument("--block-rows", type=_at_least_one,
                       help="sources per task (default: chosen from the table's size)")
    table.add_argument("--threads", type=_at_least_one, default=1,
                       help="threads of each task's wayfinder (default 1)")
    table.add_argument("--wayfinder", default="wayfinder", help="the wayfinder binary, as the workers see it")
    table.add_argument("--radius", type=_radius, help="snapping radius in metres, or unlimited")
    table.add_argument("--exclude", help="toll,motorway,ferry")
    table.add_argument("--engine", default="auto", choices=["auto", "library", "cli"],
                       help="how tasks compute their blocks: in-process through the wayfinder Python package "
                            "(library), by running the wayfinder binary (cli), or the first where the worker can "
                            "(auto, the default)")
    table.add_argument("--gather", action="store_true",
                       help="send parts back to this client instead of writing them on the workers")
    args = parser.parse_args(argv)

    # On a local cluster the workers see this machine's paths: a wrong one is refused before the cluster starts.
    if not args.scheduler:
        if not os.path.isdir(args.graph):
            table.error(f"--graph: no graph directory {args.graph}")
        if shutil.which(args.wayfinder) is None:
            table.error(f"--wayfinder: no executable {args.wayfinder}")

    try:
        from dask.distributed import Client, LocalCluster

        from .table import TableError, TableOptions, check_output, distributed_table
    except ImportError as e:
        top = (e.name or "").split(".")[0]
        if isinstance(e, ModuleNotFoundError) and top:
            problem = f"needs the Python package {PACKAGES.get(top, top)}, which is not installed"
        else:
            problem = f"cannot import a dependency: {e}"
        print(f"wayfinder_cluster: {problem} ({REQUIREMENTS})", file=sys.stderr)
        return 1

    def read(path):
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except OSError as e:
            raise TableError(f"cannot read {path}: {e.strerror}")
        except UnicodeDecodeError:
            raise TableError(f"cannot read {path}: not UTF-8 text")

    options = TableOptions(graph=args.graph, mode=args.mode, wayfinder=args.wayfinder, threads=args.threads,
                           radius=args.radius, exclude=args.exclude, engine=args.engine)
    try:
        sources = read(args.sources)
        destinations = read(args.destinations) if args.destinations else None
        # Before the cluster starts and the table is computed: an output the table could not be renamed into at
        # the end (a link to a missing directory, a parent that cannot be written) fails now, not after the work.
        check_output(args.output)
        if args.scheduler:
            try:
                client = Client(args.scheduler)
            except (OSError, ValueError) as e:
                print(f"wayfinder_cluster: cannot reach the scheduler {args.scheduler}: {e}", file=sys.stderr)
                return 1
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
