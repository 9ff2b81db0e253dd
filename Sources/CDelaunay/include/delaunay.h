#ifndef WAYFINDER_DELAUNAY_H
#define WAYFINDER_DELAUNAY_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The Delaunay triangulation of `count` points (`xy`: x0, y0, x1, y1, ...) by CGAL. On success returns 0 and sets
/// `*triangles` to 3 × `*triangleCount` point indices, each triangle counterclockwise (free with
/// wf_delaunay_free). Of points that coincide exactly, only the first is used. Returns non-zero (and no triangles)
/// when the points span no area (fewer than three, or all on one line) or the triangulation failed.
int wf_delaunay(const double *xy, int32_t count, int32_t **triangles, int32_t *triangleCount);
/// The same, with `*neighbours` (also 3 × `*triangleCount`, freed the same way): for each triangle and each of its
/// corners k, the triangle across the side opposite corner k, or -1 beyond the hull.
int wf_delaunay_with_neighbours(const double *xy, int32_t count, int32_t **triangles, int32_t **neighbours,
                                int32_t *triangleCount);
void wf_delaunay_free(int32_t *triangles);

#ifdef __cplusplus
}
#endif
#endif
