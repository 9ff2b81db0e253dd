#ifndef WAYFINDER_GPX_READER_H
#define WAYFINDER_GPX_READER_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One point of a GPX file: a track point (kind 0), route point (1) or waypoint (2), with its <time> text.
typedef struct {
    double latitude, longitude;
    int32_t kind;
    /// Offset into the reader's text of the point's <time> (NUL-terminated), or -1 without one.
    int64_t time;
} wf_gpx_point;

typedef struct {
    wf_gpx_point *points;
    size_t count;
    char *text;
    /// Whether a <gpx> element was opened and closed.
    int sawGPX, closedGPX;
    /// An empty string, or why the file is not a GPX file (XML error, a point without valid lat and lon).
    char error[256];
} wf_gpx;

/// Parses `length` bytes with expat. Returns 0 on success; otherwise `error` says why. Free with wf_gpx_free.
int wf_gpx_read(const char *bytes, size_t length, wf_gpx *out);
void wf_gpx_free(wf_gpx *gpx);

#ifdef __cplusplus
}
#endif
#endif
