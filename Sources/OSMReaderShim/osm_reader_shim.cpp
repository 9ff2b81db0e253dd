// libosmium behind a C API. Two passes: ways and relations first (to learn which nodes matter), then nodes, so
// unsorted files read correctly. Every C++ exception is caught here and becomes an error string.
#include "osm_reader_shim.h"
#include "tag_table.hpp"

#include <osmium/io/any_input.hpp>
#include <osmium/handler.hpp>
#include <osmium/osm.hpp>
#include <osmium/visitor.hpp>

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

struct Data : TagTable {

    std::vector<int64_t> node_ids;
    std::vector<int32_t> node_lats, node_lons;
    std::vector<uint32_t> tagged_nodes;
    std::vector<uint64_t> tagged_node_tag_offsets{0};

    std::vector<int64_t> way_ids;
    std::vector<uint64_t> way_node_offsets{0};
    std::vector<int64_t> way_node_ids;  // raw ids until the node pass maps them
    std::vector<uint32_t> way_nodes;
    std::vector<uint64_t> way_tag_offsets{0};

    std::vector<int64_t> relation_ids;
    std::vector<uint64_t> relation_tag_offsets{0};
    std::vector<wf_tag> relation_tags;  // apart until pass 1 ends, since relations and ways may interleave
    std::vector<uint64_t> relation_member_offsets{0};
    std::vector<wf_member> members;

    wf_osm_data view{};
};

// Ways some mode may use: highways, ferries and car trains, what OSRM's foot profile walks on besides
// (platforms, piers, running tracks, car parks), movable bridges, and any railway, amenity, man-made, public
// transport, route or bridge way that bikes are let on (bicycle.lua rides trains that take bikes, and the rest at
// its default speed).
bool is_road_or_ferry(const osmium::TagList &tags) {
    if (tags.has_key("highway")) return true;
    auto is = [&tags](const char *key, const char *value) {
        const char *v = tags[key];
        return v && std::strcmp(v, value) == 0;
    };
    if (is("route", "ferry") || is("route", "shuttle_train") || is("railway", "platform") ||
        is("public_transport", "platform") || is("man_made", "pier") || is("leisure", "track") ||
        is("amenity", "parking") || is("amenity", "parking_entrance") || is("bridge", "movable"))
        return true;
    // The first of bicycle.lua's access keys that has a value (an empty one counts as absent).
    const char *access = nullptr;
    for (const char *key : {"bicycle", "vehicle", "access"}) {
        const char *v = tags[key];
        if (v && *v) { access = v; break; }
    }
    if (!access || !(std::strcmp(access, "yes") == 0 || std::strcmp(access, "permissive") == 0 ||
                     std::strcmp(access, "designated") == 0))
        return false;
    for (const char *key : {"railway", "amenity", "man_made", "public_transport", "route", "bridge"}) {
        const char *v = tags[key];
        if (v && *v) return true;
    }
    return false;
}

// Pass 1: highway (and ferry) ways, and restriction and maneuver relations.
struct WayHandler : public osmium::handler::Handler {
    Data &data;
    explicit WayHandler(Data &d) : data(d) {}

    void way(const osmium::Way &way) {
        if (!is_road_or_ferry(way.tags())) return;
        data.way_ids.push_back(way.id());
        for (const auto &ref : way.nodes()) data.way_node_ids.push_back(ref.ref());
        data.way_node_offsets.push_back(data.way_node_ids.size());
        data.add_tags(way.tags());
        data.way_tag_offsets.push_back(data.tags.size());
    }

    void relation(const osmium::Relation &relation) {
        const char *type = relation.tags()["type"];
        if (!type || (std::strcmp(type, "restriction") != 0 && std::strcmp(type, "maneuver") != 0
                      && std::strcmp(type, "manoeuvre") != 0)) return;
        data.relation_ids.push_back(relation.id());
        for (const auto &tag : relation.tags()) {
            data.relation_tags.push_back(wf_tag{data.intern(tag.key()), data.intern(tag.value())});
        }
        data.relation_tag_offsets.push_back(data.relation_tags.size());
        for (const auto &member : relation.members()) {
            char type_code = member.type() == osmium::item_type::node ? 'n'
                             : member.type() == osmium::item_type::way ? 'w' : 'r';
            data.members.push_back(wf_member{member.ref(), data.intern(member.role()), type_code});
        }
        data.relation_member_offsets.push_back(data.members.size());
    }
};

// Pass 2: coordinates (and tags) of the referenced nodes.
struct NodeHandler : public osmium::handler::Handler {
    Data &data;
    size_t next_guess = 0;  // sorted files hit this fast path almost always
    explicit NodeHandler(Data &d) : data(d) {}

    void node(const osmium::Node &node) {
        const auto &ids = data.node_ids;
        size_t index;
        if (next_guess < ids.size() && ids[next_guess] == node.id()) {
            index = next_guess;
        } else {
            auto found = std::lower_bound(ids.begin(), ids.end(), node.id());
            if (found == ids.end() || *found != node.id()) return;
            index = static_cast<size_t>(found - ids.begin());
        }
        next_guess = index + 1;
        const auto location = node.location();
        if (!location.valid()) return;
        if (data.node_lats[index] != WF_MISSING_COORDINATE) return;  // duplicate node: keep the first
        data.node_lats[index] = location.y();
        data.node_lons[index] = location.x();
        if (!node.tags().empty()) {
            data.tagged_nodes.push_back(static_cast<uint32_t>(index));
            data.add_tags(node.tags());
            data.tagged_node_tag_offsets.push_back(data.tags.size());
        }
    }
};

template <typename Handler>
void read_pass(const osmium::io::File &file, osmium::osm_entity_bits::type entities, Handler &handler, int pass,
               wf_progress_fn progress, void *context) {
    osmium::io::Reader reader{file, entities};
    const uint64_t total = reader.file_size();
    while (osmium::memory::Buffer buffer = reader.read()) {
        osmium::apply(buffer, handler);
        if (progress) progress(context, pass, reader.offset(), total);
    }
    reader.close();
    if (progress) progress(context, pass, total, total);
}

void map_way_nodes(Data &data) {
    data.node_ids = data.way_node_ids;
    std::sort(data.node_ids.begin(), data.node_ids.end());
    data.node_ids.erase(std::unique(data.node_ids.begin(), data.node_ids.end()), data.node_ids.end());
    data.node_lats.assign(data.node_ids.size(), WF_MISSING_COORDINATE);
    data.node_lons.assign(data.node_ids.size(), WF_MISSING_COORDINATE);
    data.way_nodes.resize(data.way_node_ids.size());
    for (size_t i = 0; i < data.way_node_ids.size(); ++i) {
        auto found = std::lower_bound(data.node_ids.begin(), data.node_ids.end(), data.way_node_ids[i]);
        data.way_nodes[i] = static_cast<uint32_t>(found - data.node_ids.begin());
    }
    std::vector<int64_t>().swap(data.way_node_ids);
}

void publish(Data &d) {
    auto &v = d.view;
    v.string_count = d.string_offsets.size();
    v.string_offsets = d.string_offsets.data();
    v.strings = d.strings.data();
    v.tag_count = d.tags.size();
    v.tags = d.tags.data();
    v.node_count = d.node_ids.size();
    v.node_ids = d.node_ids.data();
    v.node_lats = d.node_lats.data();
    v.node_lons = d.node_lons.data();
    v.tagged_node_count = d.tagged_nodes.size();
    v.tagged_nodes = d.tagged_nodes.data();
    v.tagged_node_tag_offsets = d.tagged_node_tag_offsets.data();
    v.way_count = d.way_ids.size();
    v.way_ids = d.way_ids.data();
    v.way_node_offsets = d.way_node_offsets.data();
    v.way_nodes = d.way_nodes.data();
    v.way_tag_offsets = d.way_tag_offsets.data();
    v.relation_count = d.relation_ids.size();
    v.relation_ids = d.relation_ids.data();
    v.relation_tag_offsets = d.relation_tag_offsets.data();
    v.relation_member_offsets = d.relation_member_offsets.data();
    v.members = d.members.data();
    v.owner = &d;
}

// Both passes over one file (on disk or in memory).
wf_osm_data *read_both_passes(const osmium::io::File &file, wf_progress_fn progress, void *context, char *error,
                              size_t error_size) {
    Data *data = nullptr;
    try {
        data = new Data();
        WayHandler ways{*data};
        read_pass(file, osmium::osm_entity_bits::way | osmium::osm_entity_bits::relation, ways, 1, progress, context);
        map_way_nodes(*data);
        // One tag table: the ways' tags, then the relations', then the nodes'; each kind's ranges start at its part.
        const uint64_t relations_start = data->tags.size();
        data->tags.insert(data->tags.end(), data->relation_tags.begin(), data->relation_tags.end());
        std::vector<wf_tag>().swap(data->relation_tags);
        for (auto &offset : data->relation_tag_offsets) offset += relations_start;
        data->tagged_node_tag_offsets = {data->tags.size()};
        NodeHandler nodes{*data};
        read_pass(file, osmium::osm_entity_bits::node, nodes, 2, progress, context);
        publish(*data);
        return &data->view;
    } catch (const std::exception &e) {
        set_error(error, error_size, e.what());
    } catch (...) {
        set_error(error, error_size, "unknown error while reading the OSM file");
    }
    delete data;
    return nullptr;
}

}  // namespace

extern "C" wf_osm_data *wf_osm_read(const char *path, wf_progress_fn progress, void *context, char *error,
                                    size_t error_size) {
    try {
        return read_both_passes(osmium::io::File{path}, progress, context, error, error_size);
    } catch (const std::exception &e) {
        set_error(error, error_size, e.what());
    }
    return nullptr;
}

extern "C" wf_osm_data *wf_osm_read_buffer(const char *buffer, size_t size, const char *format, char *error,
                                           size_t error_size) {
    try {
        return read_both_passes(osmium::io::File{buffer, size, format}, nullptr, nullptr, error, error_size);
    } catch (const std::exception &e) {
        set_error(error, error_size, e.what());
    }
    return nullptr;
}

extern "C" void wf_osm_free(wf_osm_data *view) {
    if (!view) return;
    delete static_cast<Data *>(view->owner);
}

extern "C" uint32_t wf_file_crc32(const char *path, int *ok) {
    *ok = 0;
    FILE *file = std::fopen(path, "rb");
    if (!file) return 0;
    uLong crc = crc32(0L, Z_NULL, 0);
    std::vector<unsigned char> buffer(1 << 20);
    size_t n;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), file)) > 0) crc = crc32(crc, buffer.data(), static_cast<uInt>(n));
    *ok = std::ferror(file) ? 0 : 1;
    std::fclose(file);
    return static_cast<uint32_t>(crc);
}
