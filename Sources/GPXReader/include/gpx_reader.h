#ifndef WAYFINDER_GPX_READER_H
#define WAYFINDER_GPX_READER_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One point of a GPX file: a track point (kind 0), route point (1) or waypoint (2), with its <time>.
typedef struct {
    double latitude, longitude;
    int32_t kind;
    /// Whether the point has a <time>; `time` is then seconds since 1970 (UTC).
    int32_t hasTime;
    double time;
} wf_gpx_point;

typedef struct {
    /// Track points first if there are any, else route points and waypoints.
    wf_gpx_point *points;
    size_t count;
    /// Whether a <gpx> element was opened and closed.
    int sawGPX, closedGPX;
    /// Set when the file holds more points than it may: `error` names the limit.
    int tooMany;
    /// An empty string, or why the file is not a GPX file (XML error, a point without valid lat and lon, a time
    /// that is not ISO 8601, too many points).
    char error[256];
} wf_gpx;

/// Parses `length` bytes with expat (UTF-8, or UTF-16 with a byte-order mark), keeping at most `maxPoints` points:
/// the reading stops at the first track point past it (a route point or waypoint past it only counts when the
/// file has no track). Returns 0 on success; otherwise `error` says why. Free with wf_gpx_free.
int wf_gpx_read(const char *bytes, size_t length, size_t maxPoints, wf_gpx *out);
void wf_gpx_free(wf_gpx *gpx);

/// An ISO 8601 date and time (`2024-05-01T12:00:00Z`, fractions of a second, `+02:00`, `+0200`, or no zone for
/// UTC, as GPX times are) as seconds since 1970; 0 when `text` is not one.
int wf_iso8601_seconds(const char *text, size_t length, double *seconds);

#ifdef __cplusplus
}
#endif
#endif
