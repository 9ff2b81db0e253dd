// A small C API over libosmium: reads the parts of an OSM file that a road graph needs and hands them back as
// flat arrays owned by C++, so Swift never sees a C++ type or pays per-object overhead.
#ifndef OSM_READER_SHIM_H
#define OSM_READER_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Latitude/longitude of a node that ways reference but the file does not contain.
#define WF_MISSING_COORDINATE INT32_MIN

/// A tag is a key and a value, each an index into the interned string table.
typedef struct wf_tag {
    uint32_t key;
    uint32_t value;
} wf_tag;

typedef struct wf_member {
    int64_t ref;
    uint32_t role;  ///< index into the string table
    char type;      ///< 'n', 'w' or 'r'
} wf_member;

typedef struct wf_osm_data {
    /// Interned strings: string i is `strings + string_offsets[i]`, NUL-terminated.
    size_t string_count;
    const uint64_t *string_offsets;
    const char *strings;

    size_t tag_count;
    const wf_tag *tags;

    /// Every node referenced by a kept way, sorted by id; coordinates in 1e-7 degrees.
    size_t node_count;
    const int64_t *node_ids;
    const int32_t *node_lats;
    const int32_t *node_lons;
    /// Referenced nodes that carry tags: node index and tag range [tag_offsets[i], tag_offsets[i+1]).
    size_t tagged_node_count;
    const uint32_t *tagged_nodes;
    const uint64_t *tagged_node_tag_offsets;

    /// Ways with a `highway` tag, and ferry routes (`route=ferry`). Node references are indices into the node arrays.
    size_t way_count;
    const int64_t *way_ids;
    const uint64_t *way_node_offsets;
    const uint32_t *way_nodes;
    const uint64_t *way_tag_offsets;

    /// Relations of `type=restriction` and `type=maneuver` (or `manoeuvre`).
    size_t relation_count;
    const int64_t *relation_ids;
    const uint64_t *relation_tag_offsets;
    const uint64_t *relation_member_offsets;
    const wf_member *members;

    void *owner;  ///< private to the reader
} wf_osm_data;

/// Called as reading advances: pass 1 reads ways and relations, pass 2 nodes; `done`/`total` are bytes.
typedef void (*wf_progress_fn)(void *context, int pass, uint64_t done, uint64_t total);

/// Reads `path` (.osm.pbf, .osm, .osm.gz, .osm.bz2, ...). Returns NULL on failure with a one-line reason in `error`.
wf_osm_data *wf_osm_read(const char *path, wf_progress_fn progress, void *context, char *error, size_t error_size);

/// The same from bytes in memory, in `format` ("osm" for XML, "pbf"): what the fuzzer feeds.
wf_osm_data *wf_osm_read_buffer(const char *buffer, size_t size, const char *format, char *error, size_t error_size);

void wf_osm_free(wf_osm_data *data);

/// CRC-32 (zlib) of a whole file, or 0 with `*ok` false when it cannot be read.
uint32_t wf_file_crc32(const char *path, int *ok);

#ifdef __cplusplus
}
#endif

#endif

#ifndef OSM_PLACES_READER_H
#define OSM_PLACES_READER_H
#ifdef __cplusplus
extern "C" {
#endif

/// What the geocoding index needs: named or addressed nodes, named or addressed ways with their geometry, and
/// boundary areas (administrative and postal code) assembled into rings by libosmium's area assembler.
typedef struct wf_place_data {
    size_t string_count;
    const uint64_t *string_offsets;
    const char *strings;
    const wf_tag *tags;

    size_t feature_count;
    const char *feature_kinds;             ///< 'n' node, 'w' way, 'a' boundary area, 'r' other multipolygon
    const int64_t *feature_ids;            ///< OSM id (for areas: the way or relation id)
    const uint64_t *feature_tag_offsets;   ///< feature_count + 1
    const uint64_t *feature_point_offsets; ///< feature_count + 1, into the points
    const uint64_t *feature_ring_offsets;  ///< feature_count + 1, into the rings (areas only)
    size_t point_count;
    const int32_t *point_lats;
    const int32_t *point_lons;
    const int64_t *point_node_ids;         ///< node id of each point of a way feature, 0 elsewhere
    size_t ring_count;
    const uint64_t *ring_ends;             ///< absolute end (exclusive) of each ring in the points
    const uint8_t *ring_is_outer;
    /// 1 when boundaries could not be assembled (an unsorted file): places have no containing areas.
    int areas_skipped;

    void *owner;
} wf_place_data;

wf_place_data *wf_places_read(const char *path, char *error, size_t error_size);
void wf_places_free(wf_place_data *data);

#ifdef __cplusplus
}
#endif
#endif
