// The geocoding side of the import: named and addressed objects, and areas, through libosmium.
// Passes: relations (for the multipolygon manager), nodes (locations and point features), ways (geometry and
// way features; the manager assembles areas as their member ways arrive). Boundary relations become areas ('a',
// with rings); other multipolygons with a name, an address or a place tag become relation features ('r', their
// outer rings as points). Exceptions become an error string.
#include "osm_reader_shim.h"
#include "tag_table.hpp"

#include <osmium/area/assembler.hpp>
#include <osmium/area/multipolygon_manager.hpp>
#include <osmium/handler.hpp>
#include <osmium/handler/node_locations_for_ways.hpp>
#include <osmium/index/map/flex_mem.hpp>
#include <osmium/io/any_input.hpp>
#include <osmium/object_pointer_collection.hpp>
#include <osmium/osm.hpp>
#include <osmium/osm/object_comparisons.hpp>
#include <osmium/relations/manager_util.hpp>
#include <osmium/tags/tags_filter.hpp>
#include <osmium/visitor.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

struct Places : TagTable {
    std::vector<char> kinds;
    std::vector<int64_t> ids;
    std::vector<uint64_t> tag_offsets{0}, point_offsets{0}, ring_offsets{0};
    std::vector<int32_t> lats, lons;
    std::vector<int64_t> point_ids;  // node ids of way points (interpolation lines need them), else 0
    std::vector<uint64_t> ring_ends;
    std::vector<uint8_t> ring_outer;
    bool areas_skipped = false;
    wf_place_data view{};

    void begin(char kind, int64_t id, const osmium::TagList &list) {
        kinds.push_back(kind);
        ids.push_back(id);
        add_tags(list);
        tag_offsets.push_back(tags.size());
    }

    void point(const osmium::Location &l, int64_t node_id = 0) {
        lats.push_back(l.y());
        lons.push_back(l.x());
        point_ids.push_back(node_id);
    }

    void end() {
        point_offsets.push_back(lats.size());
        ring_offsets.push_back(ring_ends.size());
    }
};

bool interesting(const osmium::TagList &tags) {
    return tags.has_key("name") || tags.has_key("addr:housenumber") || tags.has_key("place") ||
           tags.has_key("addr:interpolation");
}

bool is_boundary(const osmium::TagList &tags) {
    const char *boundary = tags["boundary"];
    return boundary && (std::strcmp(boundary, "administrative") == 0 || std::strcmp(boundary, "postal_code") == 0);
}

struct FeatureHandler : public osmium::handler::Handler {
    Places &places;
    explicit FeatureHandler(Places &p) : places(p) {}

    void node(const osmium::Node &node) {
        if (node.tags().empty() || !node.location().valid() || !interesting(node.tags())) return;
        places.begin('n', node.id(), node.tags());
        places.point(node.location());
        places.end();
    }

    void way(const osmium::Way &way) {
        const auto &tags = way.tags();
        if (!interesting(tags)) return;
        const char *boundary = tags["boundary"];
        if (boundary && !tags.has_key("highway")) return;  // boundaries come as areas
        places.begin('w', way.id(), tags);
        for (const auto &ref : way.nodes()) {
            if (ref.location().valid()) places.point(ref.location(), ref.ref());
        }
        places.end();
    }

    void area(const osmium::Area &area) {
        if (!is_boundary(area.tags())) {
            places.begin('r', area.orig_id(), area.tags());
            for (const auto &outer : area.outer_rings()) {
                for (const auto &ref : outer) places.point(ref.location());
            }
            places.end();
            return;
        }
        places.begin('a', area.orig_id(), area.tags());
        for (const auto &outer : area.outer_rings()) {
            for (const auto &ref : outer) places.point(ref.location());
            places.ring_ends.push_back(places.lats.size());
            places.ring_outer.push_back(1);
            for (const auto &inner : area.inner_rings(outer)) {
                for (const auto &ref : inner) places.point(ref.location());
                places.ring_ends.push_back(places.lats.size());
                places.ring_outer.push_back(0);
            }
        }
        places.end();
    }
};

void publish(Places &p) {
    auto &v = p.view;
    v.string_count = p.string_offsets.size();
    v.string_offsets = p.string_offsets.data();
    v.strings = p.strings.data();
    v.tags = p.tags.data();
    v.feature_count = p.kinds.size();
    v.feature_kinds = p.kinds.data();
    v.feature_ids = p.ids.data();
    v.feature_tag_offsets = p.tag_offsets.data();
    v.feature_point_offsets = p.point_offsets.data();
    v.feature_ring_offsets = p.ring_offsets.data();
    v.point_count = p.lats.size();
    v.point_lats = p.lats.data();
    v.point_lons = p.lons.data();
    v.point_node_ids = p.point_ids.data();
    v.ring_count = p.ring_ends.size();
    v.ring_ends = p.ring_ends.data();
    v.ring_is_outer = p.ring_outer.data();
    v.areas_skipped = p.areas_skipped ? 1 : 0;
    v.owner = &p;
}

}  // namespace

namespace {

enum class WayOrder { asInFile, sorted, noAreas };

void read_places(const char *path, Places &places, WayOrder order);

}  // namespace

extern "C" wf_place_data *wf_places_read(const char *path, char *error, size_t error_size) {
    Places *places = nullptr;
    try {
        places = new Places();
        try {
            read_places(path, *places, WayOrder::asInFile);
        } catch (const osmium::out_of_order_error &) {
            // Area assembly needs ways in id order: sort them in memory and assemble again.
            delete places;
            places = new Places();
            try {
                read_places(path, *places, WayOrder::sorted);
            } catch (const osmium::out_of_order_error &) {
                delete places;
                places = new Places();
                read_places(path, *places, WayOrder::noAreas);
                places->areas_skipped = true;
            }
        }
        publish(*places);
        return &places->view;
    } catch (const std::exception &e) {
        set_error(error, error_size, e.what());
    } catch (...) {
        set_error(error, error_size, "unknown error while reading places");
    }
    delete places;
    return nullptr;
}

namespace {

void read_places(const char *path, Places &places, WayOrder order) {
    osmium::io::File file{path};
    const bool with_areas = order != WayOrder::noAreas;
    osmium::TagsFilter filter{false};
    filter.add_rule(true, "boundary", "administrative");
    filter.add_rule(true, "boundary", "postal_code");
    filter.add_rule(true, osmium::TagMatcher{"name"});
    filter.add_rule(true, osmium::TagMatcher{"addr:housenumber"});
    filter.add_rule(true, osmium::TagMatcher{"place"});
    osmium::area::Assembler::config_type config;
    config.create_way_polygons = false;  // closed ways are handled as way features
    osmium::area::MultipolygonManager<osmium::area::Assembler> manager{config, filter};
    if (with_areas) osmium::relations::read_relations(file, manager);

    using Index = osmium::index::map::FlexMem<osmium::unsigned_object_id_type, osmium::Location>;
    Index index;
    osmium::handler::NodeLocationsForWays<Index> locations{index};
    locations.ignore_errors();  // clipped extracts reference nodes they do not contain
    FeatureHandler features{places};
    {
        osmium::io::Reader reader{file, osmium::osm_entity_bits::node};
        osmium::apply(reader, locations, features);
        reader.close();
    }
    auto assembled = [&features](osmium::memory::Buffer &&buffer) { osmium::apply(buffer, features); };
    osmium::io::Reader reader{file, osmium::osm_entity_bits::way};
    switch (order) {
    case WayOrder::asInFile:
        osmium::apply(reader, locations, features, manager.handler(assembled));
        break;
    case WayOrder::noAreas:
        osmium::apply(reader, locations, features);
        break;
    case WayOrder::sorted: {
        // Only for unsorted files: every way held in memory, in id order, one version each (the newest).
        osmium::memory::Buffer ways{1024 * 1024, osmium::memory::Buffer::auto_grow::yes};
        while (osmium::memory::Buffer buffer = reader.read()) {
            for (const auto &way : buffer.select<osmium::Way>()) {
                ways.add_item(way);
                ways.commit();
            }
        }
        osmium::ObjectPointerCollection sorted;
        osmium::apply(ways, sorted);
        sorted.sort(osmium::object_order_type_id_reverse_version{});
        sorted.unique(osmium::object_equal_type_id{});
        auto &second_pass = manager.handler(assembled);
        for (auto &object : sorted) {
            auto &way = static_cast<osmium::Way &>(object);
            locations.way(way);
            features.way(way);
            second_pass.way(way);
        }
        second_pass.flush();
        break;
    }
    }
    reader.close();
}

}  // namespace

extern "C" void wf_places_free(wf_place_data *view) {
    if (view) delete static_cast<Places *>(view->owner);
}
