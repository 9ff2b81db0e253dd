"""Distance tables too large for one machine, on a Dask cluster.

The sources are split into row blocks; each block is one Dask task that computes its rows against all destinations
on a worker that has the graph, and writes its cells as one Parquet file. A task calls the engine in-process through
the `wayfinder` Python package where the worker has it (the graph is mapped once per worker process and reused by
every later task), else it runs `wayfinder matrix --format protobuf`. Both give the same cells. Blocks are
independent, so a task lost with its worker is simply run again elsewhere (Dask does this by itself), and every
cell is the one the single-process `wayfinder matrix` gives: a cell depends only on its source and destination.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from . import wayfinder_pb2

# What one task holds in memory: the protobuf text, the two float columns and the Arrow copy, about 30 bytes a
# cell. 25 million cells is under 1 GB per task, and long enough (seconds) that the per-task fixed cost (mapping
# the graph, snapping, the destinations' backward searches) stays a small share.
DEFAULT_BLOCK_CELLS = 25_000_000

# Measured on a 2,500 x 10,000 Porto block: the defaults (dictionary tried on every column, snappy) take 2.7 s and
# 268 MB; dictionaries on the index columns only and no compression (travel times barely compress) 0.9 s, 245 MB.
PARQUET_OPTIONS = {"compression": "none", "use_dictionary": ["source", "destination"]}

SCHEMA = pa.schema([
    ("source", pa.int32()),
    ("destination", pa.int32()),
    ("duration", pa.float32()),   # seconds; null when the destination cannot be reached
    ("distance", pa.float32()),   # metres along the fastest path; null likewise
])

WAYPOINT_SCHEMA = pa.schema([
    ("role", pa.string()),        # source or destination
    ("index", pa.int32()),
    ("latitude", pa.float64()),   # the point as given (a name resolved)
    ("longitude", pa.float64()),
    ("snapped_latitude", pa.float64()),   # on the road; NaN when no road is within the radius
    ("snapped_longitude", pa.float64()),
    ("snap_distance", pa.float64()),
    ("name", pa.string()),
])


class TableError(Exception):
    """A table that cannot be computed: a bad point, a missing graph, an output directory in the way."""


@dataclass
class TableOptions:
    graph: str                          # the graph directory as the workers see it
    mode: str = "driving"
    wayfinder: str = "wayfinder"        # the binary as the workers see it
    threads: int = 1                    # --threads of each task's `wayfinder matrix`
    radius: str | None = None           # --radius
    exclude: str | None = None          # --exclude
    extra: list[str] = field(default_factory=list)
    # "auto": in-process where the worker can import the `wayfinder` package and the options need nothing only the
    # CLI has (--exclude, extra arguments); "library" insists on it; "cli" runs `wayfinder matrix` per block.
    engine: str = "auto"

    def in_process(self) -> bool:
        if self.engine not in ("auto", "library", "cli"):
            raise TableError(f"engine must be auto, library or cli, not {self.engine!r}")
        if self.engine == "cli":
            return False
        usable = not self.exclude and not self.extra
        try:
            import wayfinder  # noqa: F401
        except (ImportError, OSError) as e:
            if self.engine == "library":
                raise TableError(f"the wayfinder package cannot be loaded on worker {os.uname().nodename}: {e}")
            return False
        if self.engine == "library" and not usable:
            raise TableError("--exclude and extra arguments need engine=cli")
        return usable

    def matrix_command(self) -> list[str]:
        command = [self.wayfinder, "matrix", "--graph", self.graph, "--mode", self.mode]
        if self.radius is not None:
            command += ["--radius", str(self.radius)]
        if self.exclude:
            command += ["--exclude", self.exclude]
        return command + self.extra


@dataclass
class TableResult:
    output: str
    sources: int
    destinations: int
    blocks: int
    block_rows: int
    seconds: float
    unreachable: int
    warnings: list[str]


def _die_with_parent() -> None:
    # A worker killed with SIGKILL must not leave its `wayfinder matrix` running on: the child dies with it.
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _run(command: list[str], what: str) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_die_with_parent)
    except FileNotFoundError:
        raise TableError(f"{what}: no wayfinder binary at {command[0]} on worker {os.uname().nodename}")
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise TableError(f"{what}: wayfinder exited with {done.returncode}: {message[-1] if message else ''}")
    return done


def _points_text(points: Sequence[str] | str) -> str:
    """A file's content, or a list of points (`lat,lon` or place names), as the CLI's point file."""
    if isinstance(points, str):
        return points
    return "".join(p.strip() + "\n" for p in points)


def resolve_points(options: TableOptions, sources: str, destinations: str | None) -> tuple[list, list, str]:
    """Runs once, on a worker: place names become coordinates, searched near the point before, exactly as the
    single-process `wayfinder matrix` reads them. Returns ([(lat, lon)], [(lat, lon)], stderr)."""
    with tempfile.TemporaryDirectory(prefix="wayfinder-resolve-") as scratch:
        command = options.matrix_command() + ["--resolve-only", "--sources", _write(scratch, "sources", sources)]
        if destinations is not None:
            command += ["--destinations", _write(scratch, "destinations", destinations)]
        done = _run(command, "resolving the points")
    found: dict[str, list] = {"source": [], "destination": []}
    for line in done.stdout.decode().splitlines()[1:]:
        role, _, lat, lon = line.split(",")
        found[role].append((float(lat), float(lon)))
    return found["source"], found["destination"], done.stderr.decode(errors="replace")


def _write(directory: str, stem: str, text: str) -> str:
    # The CLI tells GeoJSON from CSV by content; the suffix only has to be one it accepts as a file.
    path = os.path.join(directory, stem + (".geojson" if text.lstrip().startswith("{") else ".csv"))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def _coordinates_csv(points: Iterable[tuple[float, float]]) -> str:
    # repr gives the shortest text that reads back as the same double, as Swift's description does.
    return "".join(f"{lat!r},{lon!r}\n" for lat, lon in points)


def _parse_matrix(data: bytes) -> wayfinder_pb2.Matrix:
    matrix = wayfinder_pb2.Matrix()
    matrix.ParseFromString(data)
    return matrix


# One engine per graph and mode in each worker process, kept for the tasks that follow: mapping and checking the
# graph is what a CLI-per-block task paid every time.
_ENGINES: dict = {}
_ENGINES_LOCK = threading.Lock()


def _engine(options: TableOptions):
    import wayfinder
    key = (os.path.realpath(options.graph), options.mode)
    with _ENGINES_LOCK:
        if key not in _ENGINES:
            try:
                _ENGINES[key] = wayfinder.Engine(options.graph, modes=[options.mode])
            except wayfinder.WayfinderError as e:
                raise TableError(f"cannot open {options.graph} on worker {os.uname().nodename}: {e.message}")
        return _ENGINES[key]


def _radius_metres(radius: str | None) -> float | None:
    if radius is None:
        return None
    return math.inf if str(radius) == "unlimited" else float(radius)


def _block_in_process(options: TableOptions, block: int, sources: list, destinations_csv: str):
    """(durations, distances, source waypoints, destination waypoints, warnings) as `wayfinder matrix --format
    protobuf` gives them: float32 cells at the millisecond, NaN where unreachable."""
    import wayfinder
    destinations = [tuple(float(v) for v in line.split(",")) for line in destinations_csv.splitlines() if line]
    try:
        table = _engine(options).table(sources, destinations, mode=options.mode, threads=options.threads,
                                       radius=_radius_metres(options.radius), exact=True, dtype=np.float32)
    except wayfinder.WayfinderError as e:
        raise TableError(f"block {block}: {e.message}")
    limit = _radius_metres(options.radius) or 5000.0
    warnings = []
    for i in table.unsnapped:
        side, point = (f"source {i}", sources[i]) if i < len(sources) else \
            (f"destination {i - len(sources)}", destinations[i - len(sources)])
        within = f" within {int(limit)} m" if math.isfinite(limit) else ""
        warnings.append(f"wayfinder: {side} ({point[0]!r},{point[1]!r}) has no road usable by {options.mode}{within}: "
                        "its cells are null")

    def waypoint(w) -> tuple[float, float, float, str]:
        return (math.nan, math.nan, math.nan, "") if w is None else (w[0], w[1], w[2], w[3])

    return (table.durations.ravel(), table.distances.ravel(),
            [waypoint(w) for w in table.sources], [waypoint(w) for w in table.destinations], warnings)


def compute_block(options: TableOptions, block: int, first_row: int, sources: list, destinations_csv: str,
                  parts: str | None) -> dict:
    """One row block: `wayfinder matrix` for these sources against every destination. The cells go to
    `parts/part-NNNNN.parquet` when `parts` is given (storage every worker and the client see), else back to the
    client as Parquet bytes. Writes are atomic (temporary name, then rename), so a task run twice, or killed
    halfway, never leaves a half file."""
    started = time.monotonic()
    in_process = options.in_process()
    if in_process:
        durations, distances, source_waypoints, destination_waypoints, warnings = \
            _block_in_process(options, block, sources, destinations_csv)
        rows, columns = len(sources), len(destination_waypoints)
    else:
        with tempfile.TemporaryDirectory(prefix="wayfinder-block-") as scratch:
            sources_path = _write(scratch, "sources", _coordinates_csv(sources))
            destinations_path = _write(scratch, "destinations", destinations_csv)
            done = _run(options.matrix_command() + ["--sources", sources_path, "--destinations", destinations_path,
                                                    "--format", "protobuf", "--threads", str(options.threads)],
                        f"block {block}")
        matrix = _parse_matrix(done.stdout)
        del done.stdout
        source_waypoints = [_waypoint(w) for w in matrix.sources]
        destination_waypoints = [_waypoint(w) for w in matrix.destinations]
        warnings = done.stderr.decode(errors="replace").splitlines()
        rows, columns = len(matrix.sources), int(matrix.columns)
        if rows != len(sources) or len(matrix.durations) != rows * columns:
            raise TableError(f"block {block}: wayfinder returned {len(matrix.durations)} cells for {len(sources)} rows")
        durations = np.asarray(matrix.durations, dtype=np.float32)
        distances = np.asarray(matrix.distances, dtype=np.float32)
        del matrix
    waypoints = {
        "sources": source_waypoints,
        # Every block snaps all destinations the same way; the first block's are kept.
        "destinations": destination_waypoints if block == 0 else None,
    }
    unreachable = np.isnan(durations)
    unreachable_count = int(unreachable.sum())
    table = pa.table({
        "source": pa.array(np.repeat(np.arange(first_row, first_row + rows, dtype=np.int32), columns)),
        "destination": pa.array(np.tile(np.arange(columns, dtype=np.int32), rows)),
        "duration": pa.array(durations, mask=unreachable if unreachable_count else None),
        "distance": pa.array(distances, mask=np.isnan(distances) if unreachable_count else None),
    }, schema=SCHEMA)
    result = {"block": block, "rows": rows, "columns": columns, "unreachable": unreachable_count,
              "warnings": warnings, "waypoints": waypoints, "in_process": in_process,
              "worker": os.uname().nodename, "pid": os.getpid(), "seconds": time.monotonic() - started}
    if parts is not None:
        name = os.path.join(parts, f"part-{block:05d}.parquet")
        # Hidden (a leading dot), so that Parquet readers skip one left by a killed task; the driver removes those.
        temporary = os.path.join(parts, f".part-{block:05d}.{uuid.uuid4().hex}.tmp")
        pq.write_table(table, temporary, **PARQUET_OPTIONS)
        os.replace(temporary, name)
        result["path"] = name
    else:
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, **PARQUET_OPTIONS)
        result["parquet"] = sink.getvalue().to_pybytes()
    return result


def _waypoint(w) -> tuple[float, float, float, str]:
    return (w.location.latitude, w.location.longitude, w.distance, w.name)


def block_rows_for(sources: int, destinations: int, workers: int, block_cells: int = DEFAULT_BLOCK_CELLS) -> int:
    """Rows per task: at most `block_cells` cells, and at least two tasks per worker so that a slow or lost
    worker's share is spread over the others."""
    by_memory = max(1, block_cells // max(1, destinations))
    by_balance = max(1, -(-sources // max(1, 2 * workers)))
    return max(1, min(by_memory, by_balance))


def check_output(output: str) -> str:
    """Where the dataset will go, checked before anything is computed; returns that directory's absolute path.

    The output must be absent or an empty directory: nothing the table did not write is ever replaced. A link to a
    directory stands for that directory; a link to nothing is refused, since the dataset can be renamed neither
    onto the link nor through it. Missing parents are created, so the nearest existing one must be a directory
    this process can write into."""
    path = os.path.abspath(output)
    if os.path.islink(path):
        target = os.path.realpath(path)
        if not os.path.isdir(target):
            what = "is not a directory" if os.path.lexists(target) else "does not exist"
            raise TableError(f"{path} is a symbolic link to {target}, which {what}: give an absent or empty directory")
        path = target
    if os.path.lexists(path):
        if not os.path.isdir(path):
            raise TableError(f"{path} exists and is not an empty directory: refusing to write over it")
        try:
            entries = os.listdir(path)
        except OSError as e:
            raise TableError(f"cannot read {path}: {e.strerror}")
        if entries:
            raise TableError(f"{path} exists and is not an empty directory: refusing to write over it")
    parent = os.path.dirname(path)
    while not os.path.lexists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise TableError(f"cannot create {path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise TableError(f"cannot create {path}: {parent} is not writable")
    return path


def _prepare_output(output: str) -> tuple[str, str]:
    """(the output directory, its staging directory): parts go to a sibling directory that becomes the output by
    one rename when every block is in."""
    output = check_output(output)
    staging = f"{output}.incomplete-{uuid.uuid4().hex[:8]}"
    try:
        os.makedirs(staging)
    except OSError as e:
        raise TableError(f"cannot create {staging}: {e.strerror}")
    return output, staging


def distributed_table(client, options: TableOptions, sources: Sequence[str] | str, output: str,
                      destinations: Sequence[str] | str | None = None, block_rows: int | None = None,
                      parts_on_workers: bool = True, retries: int = 2) -> TableResult:
    """Computes the sources × destinations table (destinations default to the sources) on the cluster behind
    `client` and writes it to `output` as a Parquet dataset: `part-NNNNN.parquet` files of (source, destination,
    duration, distance) rows, `waypoints.parquet`, and `table.json` (sizes, mode, graph, block size).

    Points are `lat,lon` strings or place names, or a file's content (CSV lines or GeoJSON points), as
    `wayfinder matrix` reads them. With `parts_on_workers`, workers write the parts straight into `output`'s
    staging directory, which must then be on storage they all see; otherwise parts travel back to the client."""
    started = time.monotonic()
    # Checked before the staging directory exists: a bad value must leave nothing behind.
    if block_rows is not None and block_rows < 1:
        raise TableError(f"block_rows must be at least 1, not {block_rows!r}")
    if options.threads < 1:
        raise TableError(f"threads must be at least 1, not {options.threads!r}")
    output, staging = _prepare_output(output)
    try:
        source_text = _points_text(sources)
        destination_text = None if destinations is None else _points_text(destinations)
        resolved = client.submit(resolve_points, options, source_text, destination_text, pure=False, retries=retries)
        source_points, destination_points, resolve_log = resolved.result()
        if destinations is None:
            destination_points = source_points
        if not source_points or not destination_points:
            raise TableError("no points to compute a table for")
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        rows = block_rows or block_rows_for(len(source_points), len(destination_points), workers)
        # Sent with every task rather than scattered once: a scattered value lost with its worker cannot be
        # recomputed, and destinations are small beside the cells a task returns.
        destinations_csv = _coordinates_csv(destination_points)
        futures = [
            client.submit(compute_block, options, k, first, source_points[first:first + rows], destinations_csv,
                          staging if parts_on_workers else None, key=f"wayfinder-block-{uuid.uuid4().hex[:8]}-{k}",
                          retries=retries)
            for k, first in enumerate(range(0, len(source_points), rows))
        ]
        results = client.gather(futures)
        results.sort(key=lambda r: r["block"])
        source_waypoints = [w for r in results for w in r["waypoints"]["sources"]]
        destination_waypoints = results[0]["waypoints"]["destinations"]
        for r in results:
            if "parquet" in r:
                with open(os.path.join(staging, f"part-{r['block']:05d}.parquet"), "wb") as f:
                    f.write(r["parquet"])
        _write_waypoints(os.path.join(staging, "waypoints.parquet"), source_points, source_waypoints,
                         destination_points, destination_waypoints)
        warnings = [line for line in resolve_log.splitlines() if line] + \
            sorted({line for r in results for line in r["warnings"] if line})
        summary = {"mode": options.mode, "graph": options.graph, "sources": len(source_points),
                   "destinations": len(destination_points), "blocks": len(results), "block_rows": rows,
                   "unreachable_cells": sum(r["unreachable"] for r in results), "warnings": warnings,
                   "in_process_blocks": sum(1 for r in results if r["in_process"]),
                   "schema": {f.name: str(f.type) for f in SCHEMA}}
        with open(os.path.join(staging, "table.json"), "w") as f:
            json.dump(summary, f, indent=1)
        # What tasks killed while writing left behind (every block's part is in by now).
        for leftover in os.listdir(staging):
            if leftover.endswith(".tmp"):
                os.remove(os.path.join(staging, leftover))
        if os.path.isdir(output):
            os.rmdir(output)  # empty, checked above
        os.rename(staging, output)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return TableResult(output=output, sources=len(source_points),
                       destinations=len(destination_points), blocks=len(results), block_rows=rows,
                       seconds=time.monotonic() - started, unreachable=summary["unreachable_cells"],
                       warnings=warnings)


def _write_waypoints(path, source_points, source_waypoints, destination_points, destination_waypoints) -> None:
    rows = [("source", i, p, w) for i, (p, w) in enumerate(zip(source_points, source_waypoints))] + \
        [("destination", i, p, w) for i, (p, w) in enumerate(zip(destination_points, destination_waypoints))]
    pq.write_table(pa.table({
        "role": [r[0] for r in rows], "index": [r[1] for r in rows],
        "latitude": [r[2][0] for r in rows], "longitude": [r[2][1] for r in rows],
        "snapped_latitude": [r[3][0] for r in rows], "snapped_longitude": [r[3][1] for r in rows],
        "snap_distance": [r[3][2] for r in rows], "name": [r[3][3] for r in rows],
    }, schema=WAYPOINT_SCHEMA), path)


def read_matrix(path: str) -> tuple[np.ndarray, np.ndarray]:
    """A table as two dense float32 arrays (durations, distances), NaN where unreachable: from a dataset written
    here, or from a `wayfinder matrix --format protobuf` file."""
    if os.path.isdir(path):
        with open(os.path.join(path, "table.json")) as f:
            summary = json.load(f)
        durations = np.full((summary["sources"], summary["destinations"]), np.nan, dtype=np.float32)
        distances = durations.copy()
        for part in sorted(p for p in os.listdir(path) if p.startswith("part-") and p.endswith(".parquet")):
            t = pq.read_table(os.path.join(path, part))
            i = t["source"].to_numpy()
            j = t["destination"].to_numpy()
            durations[i, j] = t["duration"].to_numpy(zero_copy_only=False)
            distances[i, j] = t["distance"].to_numpy(zero_copy_only=False)
        return durations, distances
    with open(path, "rb") as f:
        matrix = _parse_matrix(f.read())
    shape = (len(matrix.sources), int(matrix.columns))
    return (np.asarray(matrix.durations, dtype=np.float32).reshape(shape),
            np.asarray(matrix.distances, dtype=np.float32).reshape(shape))
