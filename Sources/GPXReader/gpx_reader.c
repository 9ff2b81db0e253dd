// GPX track points by expat (Debian's libexpat, already linked for libosmium): FoundationXML was found by
// fuzzing to trap or crash on some malformed files, which a command reading users' files must not.
#include "gpx_reader.h"

#include <ctype.h>
#include <expat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    wf_gpx_point *items;
    size_t count, capacity;
} point_list;

typedef struct {
    wf_gpx *out;
    point_list track, others;
    size_t maxPoints;
    /// More route points or waypoints than the limit: an error only if the file turns out to have no track.
    int othersOverLimit;
    /// Whether a point is being read, its kind, and whether it was kept.
    int inPoint, pointKind, pointKept, inTime;
    /// A <time>'s text; longer than any ISO 8601 time, it is not one.
    char time[64];
    size_t timeLength;
    int timeOverflow;
    XML_Parser parser;
} state;

static const char *local_name(const char *name) {
    const char *colon = strrchr(name, ':');
    return colon ? colon + 1 : name;
}

static void fail(state *s, const char *message) {
    if (!s->out->error[0]) {
        snprintf(s->out->error, sizeof s->out->error, "%s at line %lu", message,
                 (unsigned long)XML_GetCurrentLineNumber(s->parser));
    }
    XML_StopParser(s->parser, XML_FALSE);
}

static int append(point_list *list, wf_gpx_point point) {
    if (list->count == list->capacity) {
        size_t next = list->capacity ? list->capacity * 2 : 256;
        wf_gpx_point *grown = realloc(list->items, next * sizeof *grown);
        if (!grown) return 0;
        list->items = grown;
        list->capacity = next;
    }
    list->items[list->count++] = point;
    return 1;
}

static void start(void *data, const char *name, const char **attributes) {
    state *s = data;
    const char *element = local_name(name);
    if (strcmp(element, "gpx") == 0) { s->out->sawGPX = 1; return; }
    int kind = strcmp(element, "trkpt") == 0 ? 0 : strcmp(element, "rtept") == 0 ? 1 : strcmp(element, "wpt") == 0 ? 2 : -1;
    if (kind >= 0) {
        const char *lat = NULL, *lon = NULL;
        for (int i = 0; attributes[i] && attributes[i + 1]; i += 2) {
            if (strcmp(attributes[i], "lat") == 0) lat = attributes[i + 1];
            if (strcmp(attributes[i], "lon") == 0) lon = attributes[i + 1];
        }
        char *end1 = NULL, *end2 = NULL;
        double la = lat ? strtod(lat, &end1) : NAN, lo = lon ? strtod(lon, &end2) : NAN;
        if (!lat || !lon || *end1 || *end2 || !isfinite(la) || !isfinite(lo) || fabs(la) > 90 || fabs(lo) > 180) {
            fail(s, "a point has no valid lat and lon");
            return;
        }
        s->inPoint = 1;
        s->pointKind = kind;
        s->pointKept = 0;
        point_list *list = kind == 0 ? &s->track : &s->others;
        // Checked while reading, so a file far over the limit is refused at the limit, not after all of it.
        if (list->count >= s->maxPoints) {
            if (kind == 0) {
                char message[128];
                snprintf(message, sizeof message, "more than %zu track points (the limit)", s->maxPoints);
                s->out->tooMany = 1;
                fail(s, message);
            } else {
                s->othersOverLimit = 1;
            }
            return;
        }
        if (!append(list, (wf_gpx_point){la, lo, kind, 0, 0})) { fail(s, "out of memory"); return; }
        s->pointKept = 1;
        return;
    }
    if (s->inPoint && strcmp(element, "time") == 0) {
        s->inTime = 1;
        s->timeLength = 0;
        s->timeOverflow = 0;
    }
}

static void characters(void *data, const char *text, int length) {
    state *s = data;
    if (!s->inTime || length <= 0) return;
    if (s->timeLength + (size_t)length >= sizeof s->time) { s->timeOverflow = 1; return; }
    memcpy(s->time + s->timeLength, text, (size_t)length);
    s->timeLength += (size_t)length;
}

static void end(void *data, const char *name) {
    state *s = data;
    const char *element = local_name(name);
    if (strcmp(element, "gpx") == 0) { s->out->closedGPX = 1; return; }
    if (s->inTime && strcmp(element, "time") == 0) {
        s->inTime = 0;
        if (!s->pointKept) return;
        const char *text = s->time;
        size_t length = s->timeLength;
        while (length > 0 && isspace((unsigned char)*text)) { text++; length--; }
        while (length > 0 && isspace((unsigned char)text[length - 1])) length--;
        double seconds = 0;
        if (s->timeOverflow || !wf_iso8601_seconds(text, length, &seconds)) {
            char message[160];
            snprintf(message, sizeof message, "a <time> is not an ISO 8601 time: '%.*s%s'", (int)(length > 40 ? 40 : length),
                     text, s->timeOverflow || length > 40 ? "…" : "");
            fail(s, message);
            return;
        }
        point_list *list = s->pointKind == 0 ? &s->track : &s->others;
        list->items[list->count - 1].hasTime = 1;
        list->items[list->count - 1].time = seconds;
        return;
    }
    if (strcmp(element, "trkpt") == 0 || strcmp(element, "rtept") == 0 || strcmp(element, "wpt") == 0) s->inPoint = 0;
}

int wf_gpx_read(const char *bytes, size_t length, size_t maxPoints, wf_gpx *out) {
    memset(out, 0, sizeof *out);
    state s = {0};
    s.out = out;
    s.maxPoints = maxPoints;
    // No encoding forced: expat follows a byte-order mark (UTF-8 or UTF-16) and the XML declaration.
    XML_Parser parser = XML_ParserCreate(NULL);
    if (!parser) { snprintf(out->error, sizeof out->error, "out of memory"); return 1; }
    s.parser = parser;
    XML_SetUserData(parser, &s);
    XML_SetElementHandler(parser, start, end);
    XML_SetCharacterDataHandler(parser, characters);
    if (length > (size_t)INT32_MAX) { snprintf(out->error, sizeof out->error, "the file is too large"); XML_ParserFree(parser); return 1; }
    if (XML_Parse(parser, bytes, (int)length, 1) == XML_STATUS_ERROR && !out->error[0]) {
        snprintf(out->error, sizeof out->error, "%s at line %lu", XML_ErrorString(XML_GetErrorCode(parser)),
                 (unsigned long)XML_GetCurrentLineNumber(parser));
    }
    XML_ParserFree(parser);
    if (!out->error[0] && s.track.count == 0 && s.othersOverLimit) {
        snprintf(out->error, sizeof out->error, "more than %zu route points or waypoints (the limit)", maxPoints);
        out->tooMany = 1;
    }
    if (s.track.count > 0) {
        out->points = s.track.items;
        out->count = s.track.count;
        free(s.others.items);
    } else {
        out->points = s.others.items;
        out->count = s.others.count;
        free(s.track.items);
    }
    return out->error[0] ? 1 : 0;
}

void wf_gpx_free(wf_gpx *gpx) {
    free(gpx->points);
    gpx->points = NULL;
    gpx->count = 0;
}

static int digits(const char *text, size_t at, size_t count, size_t length, int *value) {
    if (at + count > length) return 0;
    int v = 0;
    for (size_t k = 0; k < count; k++) {
        char c = text[at + k];
        if (c < '0' || c > '9') return 0;
        v = v * 10 + (c - '0');
    }
    *value = v;
    return 1;
}

// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
static long long days_from_civil(long long y, unsigned m, unsigned d) {
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

int wf_iso8601_seconds(const char *text, size_t length, double *seconds) {
    int year, month, day, hour, minute, second;
    if (!digits(text, 0, 4, length, &year) || length < 19 || text[4] != '-' || !digits(text, 5, 2, length, &month)
        || text[7] != '-' || !digits(text, 8, 2, length, &day) || (text[10] != 'T' && text[10] != 't' && text[10] != ' ')
        || !digits(text, 11, 2, length, &hour) || text[13] != ':' || !digits(text, 14, 2, length, &minute)
        || text[16] != ':' || !digits(text, 17, 2, length, &second)) return 0;
    static const int monthDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12 || day < 1 || day > monthDays[month - 1] || hour > 24 || minute > 59 || second > 60) return 0;
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (month == 2 && day == 29 && !leap) return 0;
    if (hour == 24 && (minute || second)) return 0;
    size_t at = 19;
    double fraction = 0;
    if (at < length && (text[at] == '.' || text[at] == ',')) {
        at++;
        double scale = 0.1;
        size_t first = at;
        while (at < length && text[at] >= '0' && text[at] <= '9') {
            fraction += (text[at] - '0') * scale;
            scale /= 10;
            at++;
        }
        if (at == first) return 0;
    }
    int offset = 0;
    if (at < length && (text[at] == 'Z' || text[at] == 'z')) {
        at++;
    } else if (at < length && (text[at] == '+' || text[at] == '-')) {
        int sign = text[at] == '-' ? -1 : 1, zh, zm = 0;
        at++;
        if (!digits(text, at, 2, length, &zh)) return 0;
        at += 2;
        if (at < length && text[at] == ':') at++;
        if (at < length) {
            if (!digits(text, at, 2, length, &zm)) return 0;
            at += 2;
        }
        if (zh > 23 || zm > 59) return 0;
        offset = sign * (zh * 3600 + zm * 60);
    }
    if (at != length) return 0;
    long long days = days_from_civil(year, (unsigned)month, (unsigned)day);
    *seconds = (double)(days * 86400 + hour * 3600 + minute * 60 + second - offset) + fraction;
    return 1;
}
