// Flat C data → protobuf messages, serialised into malloc'd buffers. Exceptions never cross into Swift.
#include "wayfinder_proto.h"

#include "generated/wayfinder.pb.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::string text(const char *s) { return s ? std::string(s) : std::string(); }

void fill(wayfinder::Waypoint *w, const wf_pb_waypoint &in) {
    w->mutable_location()->set_latitude(in.latitude);
    w->mutable_location()->set_longitude(in.longitude);
    w->set_distance(in.distance);
    w->set_name(text(in.name));
}

int finish(const google::protobuf::MessageLite &message, uint8_t **out, size_t *out_size) {
    const size_t size = message.ByteSizeLong();
    auto *buffer = static_cast<uint8_t *>(std::malloc(size > 0 ? size : 1));
    if (!buffer) return -1;
    if (size > 0 && !message.SerializeToArray(buffer, static_cast<int>(size))) {
        std::free(buffer);
        return -1;
    }
    *out = buffer;
    *out_size = size;
    return 0;
}

}  // namespace

extern "C" int wf_pb_encode_route(const char *mode, double distance, double duration, const char *polyline6,
                                  const wf_pb_waypoint *waypoints, size_t waypoint_count, const wf_pb_leg *legs,
                                  size_t leg_count, uint8_t **out, size_t *out_size) {
    try {
        wayfinder::Route route;
        route.set_mode(text(mode));
        route.set_distance(distance);
        route.set_duration(duration);
        route.set_polyline6(text(polyline6));
        for (size_t i = 0; i < waypoint_count; ++i) fill(route.add_waypoints(), waypoints[i]);
        for (size_t i = 0; i < leg_count; ++i) {
            auto *leg = route.add_legs();
            leg->set_distance(legs[i].distance);
            leg->set_duration(legs[i].duration);
            for (size_t k = 0; k < legs[i].step_count; ++k) {
                const wf_pb_step &in = legs[i].steps[k];
                auto *step = leg->add_steps();
                step->set_instruction(text(in.instruction));
                step->set_type(text(in.type));
                step->set_modifier(text(in.modifier));
                step->set_name(text(in.name));
                step->set_distance(in.distance);
                step->set_duration(in.duration);
                step->mutable_location()->set_latitude(in.latitude);
                step->mutable_location()->set_longitude(in.longitude);
            }
        }
        return finish(route, out, out_size);
    } catch (...) {
        return -1;
    }
}

extern "C" int wf_pb_encode_matrix_header(const char *mode, const wf_pb_waypoint *sources, size_t source_count,
                                          const wf_pb_waypoint *destinations, size_t destination_count,
                                          uint32_t columns, uint8_t **out, size_t *out_size) {
    try {
        wayfinder::Matrix matrix;
        matrix.set_mode(text(mode));
        for (size_t i = 0; i < source_count; ++i) fill(matrix.add_sources(), sources[i]);
        for (size_t i = 0; i < destination_count; ++i) fill(matrix.add_destinations(), destinations[i]);
        matrix.set_columns(columns);
        return finish(matrix, out, out_size);
    } catch (...) {
        return -1;
    }
}

extern "C" int wf_pb_encode_matrix_rows(const float *durations, const float *distances, size_t cell_count,
                                        uint8_t **out, size_t *out_size) {
    try {
        wayfinder::Matrix piece;
        piece.mutable_durations()->Add(durations, durations + cell_count);
        piece.mutable_distances()->Add(distances, distances + cell_count);
        return finish(piece, out, out_size);
    } catch (...) {
        return -1;
    }
}

extern "C" void wf_pb_free(uint8_t *buffer) { std::free(buffer); }
