// Encodes Wayfinder's protobuf messages (proto/wayfinder.proto) from flat C data, so Swift never touches C++.
#ifndef WAYFINDER_PROTO_H
#define WAYFINDER_PROTO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wf_pb_waypoint {
    double latitude, longitude, distance;
    const char *name;
} wf_pb_waypoint;

typedef struct wf_pb_step {
    const char *instruction, *type, *modifier, *name;
    double distance, duration, latitude, longitude;
} wf_pb_step;

typedef struct wf_pb_leg {
    double distance, duration;
    const wf_pb_step *steps;
    size_t step_count;
} wf_pb_leg;

/// Each returns 0 on success and a malloc'd buffer in *out (free with wf_pb_free), or -1.
int wf_pb_encode_route(const char *mode, double distance, double duration, const char *polyline6,
                       const wf_pb_waypoint *waypoints, size_t waypoint_count, const wf_pb_leg *legs,
                       size_t leg_count, uint8_t **out, size_t *out_size);

/// The first piece of a Matrix message: mode, waypoints, column count.
int wf_pb_encode_matrix_header(const char *mode, const wf_pb_waypoint *sources, size_t source_count,
                               const wf_pb_waypoint *destinations, size_t destination_count, uint32_t columns,
                               uint8_t **out, size_t *out_size);

/// A further piece: the cells of some rows (NaN for unreachable), appended to the message's repeated fields.
int wf_pb_encode_matrix_rows(const float *durations, const float *distances, size_t cell_count, uint8_t **out,
                             size_t *out_size);

void wf_pb_free(uint8_t *buffer);

#ifdef __cplusplus
}
#endif

#endif
