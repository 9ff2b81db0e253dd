// Shared by the road reader and the place reader: interned strings and tag pairs (every distinct key or value is
// stored once, and tags are pairs of string indices that Swift reads in place), and one-line error reporting.
#ifndef WF_TAG_TABLE_HPP
#define WF_TAG_TABLE_HPP

#include "osm_reader_shim.h"

#include <osmium/osm/tag.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

struct TagTable {
    std::vector<uint64_t> string_offsets;
    std::vector<char> strings;
    std::unordered_map<std::string, uint32_t> string_ids;
    std::vector<wf_tag> tags;

    uint32_t intern(const char *text) {
        std::string key{text};
        auto found = string_ids.find(key);
        if (found != string_ids.end()) return found->second;
        auto id = static_cast<uint32_t>(string_offsets.size());
        string_offsets.push_back(strings.size());
        strings.insert(strings.end(), key.begin(), key.end());
        strings.push_back('\0');
        string_ids.emplace(std::move(key), id);
        return id;
    }

    void add_tags(const osmium::TagList &list) {
        for (const auto &tag : list) tags.push_back(wf_tag{intern(tag.key()), intern(tag.value())});
    }
};

/// Copies an exception message into the caller's buffer as one line.
inline void set_error(char *error, size_t size, const std::string &message) {
    if (!error || size == 0) return;
    std::string line = message;
    std::replace(line.begin(), line.end(), '\n', ' ');
    std::snprintf(error, size, "%s", line.c_str());
}

#endif
