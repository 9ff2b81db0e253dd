/* Wayfinder's C entry points (libWayfinderC.so), over the WayfinderEngine library.
 *
 * Text is NUL-terminated UTF-8. Answers are malloc'ed bytes (NUL-terminated too) that the caller frees with
 * wf_free. A call returns 0 (or, for wf_request, the HTTP status) and never aborts on bad input: failures are an
 * HTTP status with OSRM's error body, {"code": "...", "message": "..."}, in the answer.
 * Every call may run on any thread at once with the same engine. */
#ifndef WAYFINDER_H
#define WAYFINDER_H

#include <stddef.h>
#include <stdint.h>

/* Opens a graph directory made by `wayfinder import`; modes NULL for every mode it built, else "driving,walking".
 * NULL on failure, with the error body in *error. */
void *wf_open(const char *directory, const char *modes, uint8_t **error);

/* Closes an engine opened by wf_open. No call on it may be running, and none may follow (the Python package
 * waits for the calls in flight and refuses later ones). */
void wf_close(void *engine);

/* Frees an answer. */
void wf_free(void *pointer);

/* Any request of the HTTP API: target as "/route/v1/driving/24.94,60.17;24.95,60.18?steps=true", body a POST's
 * JSON (NULL for GET). Returns the HTTP status; the body in *out. */
int32_t wf_request(void *engine, const char *target, const uint8_t *body, ptrdiff_t body_length, uint8_t **out,
                   ptrdiff_t *out_length);

/* A route, answered as `wayfinder route --format json` answers it. request is JSON:
 * {"points": [[lat, lon] or "name", ...], "mode": "driving", "steps": true, "language": "en",
 *  "units": "metric", "compat": "wayfinder", "alternatives": 0, "avoid": ["toll"], "radius": 5000,
 *  "depart_at": "2026-12-07T08:00"} (or "arrive_by"; the extract's local time, or with Z or an offset). */
int32_t wf_route(void *engine, const char *request, uint8_t **out, ptrdiff_t *out_length);

/* A table of source_count x destination_count cells into durations and distances (row-major doubles: seconds and
 * metres to a tenth, or unrounded with exact != 0; NaN where unreachable). sources and destinations are lat, lon
 * pairs; destinations NULL for the sources. radius <= 0: 5 km; threads <= 0: every core. *out gets the snapped
 * points: {"unsnapped": [i, ...], "sources": [[lat, lon, distance, name] or null, ...], "destinations": [...]}. */
int32_t wf_table(void *engine, const char *mode, const double *sources, ptrdiff_t source_count,
                 const double *destinations, ptrdiff_t destination_count, double radius, int32_t threads,
                 int32_t exact, double *durations, double *distances, uint8_t **out, ptrdiff_t *out_length);

/* wf_table into arrays of floats: half the memory of a large table. */
int32_t wf_table_float(void *engine, const char *mode, const double *sources, ptrdiff_t source_count,
                       const double *destinations, ptrdiff_t destination_count, double radius, int32_t threads,
                       int32_t exact, float *durations, float *distances, uint8_t **out, ptrdiff_t *out_length);

#endif
