"""Wayfinder's routing engine, in-process: routes, tables and nearest roads from a graph made by `wayfinder import`.

    import wayfinder
    with wayfinder.Engine("graphs/helsinki") as engine:
        route = engine.route([(60.1675, 24.9440), (60.1756, 24.9412)], mode="walking")
        durations, distances = engine.table(points)

Points are (latitude, longitude), as the CLI takes them; a route's points may also be names ("Kamppi"). Answers
are OSRM v5 JSON as dicts, and tables NumPy arrays. Every call releases the GIL while the engine computes (ctypes
does for foreign calls), so threads sharing one engine use every core. Failures raise `WayfinderError` with
OSRM's code and message, the same as the CLI and the HTTP API give.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import threading
import urllib.parse
from typing import Iterable, Mapping, NamedTuple, Sequence

import numpy as np

try:  # a route with steps is tens of kilobytes of JSON: orjson reads it several times faster than json
    from orjson import loads as _loads
except ImportError:  # pragma: no cover - orjson is a dependency of the wheel
    _loads = json.loads

__all__ = ["Engine", "Table", "WayfinderError"]
__version__ = "0.1.0"


class WayfinderError(Exception):
    """A call the engine refused or could not answer: `code` is OSRM's (NoRoute, NoSegment, InvalidValue, …)."""

    def __init__(self, code: str, message: str, status: int = 400):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status


class Table(NamedTuple):
    """A table's cells: seconds and metres (to a tenth unless exact), NaN where a destination cannot be reached."""

    durations: np.ndarray        # shape (sources, destinations), float64
    distances: np.ndarray        # likewise
    unsnapped: list              # the points (sources first, then destinations) with no road near them
    sources: list                # each source as snapped: (lat, lon, metres from the point, road name), or None
    destinations: list           # likewise


def _library_path() -> str:
    # A wheel carries the library beside this file; a source checkout names the build's with WAYFINDER_LIBRARY.
    override = os.environ.get("WAYFINDER_LIBRARY")
    if override:
        return override
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib", "libWayfinderC.so")


_Out = ctypes.POINTER(ctypes.c_uint8)
_lib = ctypes.CDLL(_library_path())
_lib.wf_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_Out)]
_lib.wf_open.restype = ctypes.c_void_p
_lib.wf_close.argtypes = [ctypes.c_void_p]
_lib.wf_close.restype = None
_lib.wf_free.argtypes = [ctypes.c_void_p]
_lib.wf_free.restype = None
_lib.wf_request.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ssize_t, ctypes.POINTER(_Out),
                            ctypes.POINTER(ctypes.c_ssize_t)]
_lib.wf_request.restype = ctypes.c_int32
_lib.wf_route.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(_Out), ctypes.POINTER(ctypes.c_ssize_t)]
_lib.wf_route.restype = ctypes.c_int32
_Doubles = ctypes.POINTER(ctypes.c_double)
_lib.wf_table.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _Doubles, ctypes.c_ssize_t, _Doubles, ctypes.c_ssize_t,
                          ctypes.c_double, ctypes.c_int32, ctypes.c_int32, _Doubles, _Doubles, ctypes.POINTER(_Out),
                          ctypes.POINTER(ctypes.c_ssize_t)]
_lib.wf_table.restype = ctypes.c_int32
_Floats = ctypes.POINTER(ctypes.c_float)
_lib.wf_table_float.argtypes = _lib.wf_table.argtypes[:9] + [_Floats, _Floats] + _lib.wf_table.argtypes[11:]
_lib.wf_table_float.restype = ctypes.c_int32


def _take(pointer, length: int | None = None) -> bytes:
    """The bytes of an answer (up to its NUL when no length is given), freed in the library."""
    if not pointer:
        return b""
    try:
        return ctypes.string_at(pointer) if length is None else ctypes.string_at(pointer, length)
    finally:
        _lib.wf_free(pointer)


def _error(body: bytes, status: int) -> WayfinderError:
    try:
        answer = json.loads(body)
        return WayfinderError(str(answer["code"]), str(answer.get("message", "")), int(answer.get("status", status)))
    except (ValueError, KeyError, TypeError):
        return WayfinderError("InvalidValue", body.decode("utf-8", "replace") or "the engine gave no answer", status)


def _text(value, what: str) -> bytes:
    if not isinstance(value, str):
        raise WayfinderError("InvalidValue", f"{what} must be a string, not {type(value).__name__}")
    if "\0" in value:
        raise WayfinderError("InvalidValue", f"{what} must not contain NUL")
    return value.encode("utf-8")


def _points(points, what: str) -> np.ndarray:
    """(n, 2) float64 latitude, longitude pairs, checked."""
    try:
        array = np.ascontiguousarray(np.asarray(points, dtype=np.float64))
    except (TypeError, ValueError) as error:
        raise WayfinderError("InvalidValue", f"{what} must be (latitude, longitude) pairs: {error}") from None
    if array.size == 0:
        array = array.reshape(0, 2)
    if array.ndim != 2 or array.shape[1] != 2:
        raise WayfinderError("InvalidValue", f"{what} must be (latitude, longitude) pairs, not shape {array.shape}")
    if not np.isfinite(array).all() or (np.abs(array[:, 0]) > 90).any() or (np.abs(array[:, 1]) > 180).any():
        raise WayfinderError("InvalidValue", f"{what}: latitudes must lie in -90…90 and longitudes in -180…180")
    return array


class Engine:
    """One graph directory, opened in-process. Share one engine between threads; close it (or use `with`) to unmap
    its graphs."""

    def __init__(self, graph_dir: str | os.PathLike, modes: Sequence[str] | None = None):
        self._handle = None
        error = _Out()
        try:
            path = os.fspath(graph_dir)
            mode_text = None if modes is None else _text(",".join(modes), "modes")
        except TypeError as problem:
            raise WayfinderError("InvalidValue", f"graph_dir must be a path and modes a list of names: {problem}") from None
        handle = _lib.wf_open(_text(path, "graph_dir"), mode_text, ctypes.byref(error))
        if not handle:
            raise _error(_take(error), 400)
        self._handle = handle
        self._calls = 0
        self._idle = threading.Condition()

    # Calls in flight hold the engine open: close waits for them, and calls after close are refused.
    def _enter(self) -> int:
        with self._idle:
            if not self._handle:
                raise WayfinderError("InvalidValue", "the engine is closed")
            self._calls += 1
            return self._handle

    def _leave(self) -> None:
        with self._idle:
            self._calls -= 1
            self._idle.notify_all()

    def _call(self, function, *arguments, success: int = 0) -> bytes:
        """One entry point on this engine, its answer's bytes; a status other than `success` raises its error."""
        out, length = _Out(), ctypes.c_ssize_t()
        handle = self._enter()
        try:
            status = function(handle, *arguments, ctypes.byref(out), ctypes.byref(length))
        finally:
            self._leave()
        body = _take(out, length.value)
        if status != success:
            raise _error(body, status)
        return body

    def close(self) -> None:
        """Closes the engine once no call is running; later calls raise `WayfinderError`."""
        with self._idle:
            self._idle.wait_for(lambda: self._calls == 0)
            if self._handle:
                _lib.wf_close(self._handle)
                self._handle = None

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            _lib.wf_close(self._handle)
            self._handle = None

    def route(self, points: Iterable, mode: str = "driving", steps: bool = True, language: str = "en",
              units: str = "metric", compat: str = "wayfinder", alternatives: int = 0,
              avoid: Sequence[str] = (), radius: float | None = None, depart_at: str | None = None,
              arrive_by: str | None = None, weights: Mapping[str, float] | None = None) -> dict:
        """The fastest route through `points` in order: OSRM v5 JSON as a dict, as `wayfinder route --format json`
        prints it. A point is (latitude, longitude) or a place name. `depart_at` or `arrive_by` ("2026-12-07T08:00",
        the extract's local time, or with Z or an offset) apply the extract's conditional restrictions and closures
        at the time each road is reached; the answer's `depart_at` says when the route leaves. `avoid` forbids roads
        (toll, motorway, ferry); `weights` makes kinds of road weigh more in the choice, from 1 to 100 times
        ({"unpaved": 10, "minor_roads": 1.5}: toll, motorway, ferry, tunnel, unpaved, minor_roads)."""
        extra = {key: value for key, value in (("depart_at", depart_at), ("arrive_by", arrive_by)) if value is not None}
        if weights is not None:
            extra["weights"] = dict(weights)
        try:
            text = json.dumps(self._route_request(points, mode=mode, steps=steps, language=language, units=units,
                                                  compat=compat, alternatives=alternatives, avoid=list(avoid),
                                                  radius=radius, **extra), allow_nan=False)
        except (TypeError, ValueError) as error:
            raise WayfinderError("InvalidValue", f"the route's arguments cannot be sent: {error}") from None
        return _loads(self._call(_lib.wf_route, _text(text, "the request")))

    @staticmethod
    def _route_request(points, radius, **options) -> dict:
        wanted = []
        if isinstance(points, (str, bytes)):
            raise WayfinderError("InvalidQuery", "points must be a list of (latitude, longitude) pairs or names")
        for i, point in enumerate(points):
            if isinstance(point, str):
                wanted.append(point)
                continue
            try:
                lat, lon = (float(v) for v in point)
            except (TypeError, ValueError):
                raise WayfinderError("InvalidQuery", f"point {i} is neither (latitude, longitude) nor a name") from None
            if not (math.isfinite(lat) and math.isfinite(lon) and abs(lat) <= 90 and abs(lon) <= 180):
                raise WayfinderError("InvalidValue", f"point {i}: latitude must lie in -90…90 and longitude in -180…180")
            wanted.append([lat, lon])
        request = dict(options, points=wanted)
        if radius is not None:
            request["radius"] = radius
        return request

    def table(self, sources, destinations=None, mode: str = "driving", radius: float | None = None,
              threads: int | None = None, exact: bool = False, out: tuple | None = None, dtype=np.float64) -> Table:
        """Durations (s) and distances (m) from every source to every destination (to the sources when
        `destinations` is None), as `wayfinder matrix` computes them, into NumPy arrays: to a tenth as its CSV and
        JSON give them, or with `exact` unrounded (durations to the millisecond) as its protobuf does. Every core
        works unless `threads` says otherwise. A point with no road within `radius` (default 5 km) gets NaN cells
        and is listed in `unsnapped`. `dtype` is float64, or float32 for half the memory (as OSRM keeps its
        cells). `out`, a pair of C-contiguous arrays of that dtype and of shape (sources, destinations), receives
        the cells instead of new arrays: a batch of large tables then reuses its memory."""
        origin = _points(sources, "sources")
        target = None if destinations is None else _points(destinations, "destinations")
        rows, columns = len(origin), len(origin) if target is None else len(target)
        try:
            dtype = np.dtype(dtype)
        except TypeError:
            raise WayfinderError("InvalidValue", f"dtype must be float64 or float32, not {dtype!r}") from None
        if dtype not in (np.float64, np.float32):
            raise WayfinderError("InvalidValue", f"dtype must be float64 or float32, not {dtype}")
        if out is None:
            # Uninitialised: the engine writes every cell once (NaN where unreachable).
            durations, distances = np.empty((rows, columns), dtype), np.empty((rows, columns), dtype)
        else:
            try:
                durations, distances = out
            except (TypeError, ValueError):
                raise WayfinderError("InvalidValue", "out must be a pair of arrays (durations, distances)") from None
            for array in (durations, distances):
                if not (isinstance(array, np.ndarray) and array.dtype == dtype and array.shape == (rows, columns)
                        and array.flags.c_contiguous and array.flags.writeable):
                    raise WayfinderError("InvalidValue", f"out must hold two writeable C-contiguous {dtype} arrays "
                                                         f"of shape ({rows}, {columns})")
            if durations is distances or np.shares_memory(durations, distances):
                raise WayfinderError("InvalidValue", "out's two arrays must not share memory")
        if threads is not None and not (isinstance(threads, int) and 1 <= threads <= 256):
            raise WayfinderError("InvalidValue", f"threads must be 1 to 256, not {threads!r}")
        if radius is not None and not (isinstance(radius, (int, float)) and radius > 0):
            raise WayfinderError("InvalidValue", f"radius must be a positive number of metres, not {radius!r}")
        function, cell = (_lib.wf_table, _Doubles) if dtype == np.float64 else (_lib.wf_table_float, _Floats)
        snapped = _loads(self._call(
            function, _text(mode, "mode"), origin.ctypes.data_as(_Doubles), rows,
            None if target is None else target.ctypes.data_as(_Doubles), columns, float(radius or 0),
            int(threads or 0), 1 if exact else 0, durations.ctypes.data_as(cell), distances.ctypes.data_as(cell)))
        points = [[None if p is None else tuple(p) for p in snapped[role]] for role in ("sources", "destinations")]
        return Table(durations, distances, snapped["unsnapped"], *points)

    def nearest(self, point, mode: str = "driving", number: int = 1) -> dict:
        """The `number` roads nearest to (latitude, longitude) that `mode` may use: OSRM's nearest answer."""
        pairs = _points([point], "point").tolist()
        if len(pairs) != 1:
            raise WayfinderError("InvalidValue", "point must be one (latitude, longitude) pair")
        (lat, lon), = pairs
        if not isinstance(number, int) or isinstance(number, bool):
            raise WayfinderError("InvalidValue", f"number must be an integer, not {number!r}")
        return self.request(f"/nearest/v1/{urllib.parse.quote(mode, safe='')}/{lon!r},{lat!r}?number={number}")

    def request(self, target: str, body: dict | None = None) -> dict:
        """Any request of the HTTP API, answered in-process: an OSRM v5 target such as
        `/trip/v1/driving/24.94,60.17;24.95,60.18` (longitude first, as OSRM's URLs say), with a POST's JSON body."""
        try:
            payload = None if body is None else json.dumps(body, allow_nan=False).encode("utf-8")
        except (TypeError, ValueError) as error:
            raise WayfinderError("InvalidQuery", f"the body is not JSON: {error}") from None
        return _loads(self._call(_lib.wf_request, _text(target, "target"), payload, len(payload or b""), success=200))
