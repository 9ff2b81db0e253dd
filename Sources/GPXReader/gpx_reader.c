// GPX track points by expat (Debian's libexpat, already linked for libosmium): FoundationXML was found by
// fuzzing to trap or crash on some malformed files, which a command reading users' files must not.
#include "gpx_reader.h"

#include <expat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    wf_gpx *out;
    size_t capacity, textLength, textCapacity;
    int inPoint, inTime;
    int64_t timeStart;
    XML_Parser parser;
} state;

static const char *local_name(const char *name) {
    const char *colon = strrchr(name, ':');
    return colon ? colon + 1 : name;
}

static int append_text(state *s, const char *data, size_t length) {
    if (s->textLength + length + 1 > s->textCapacity) {
        size_t next = (s->textCapacity ? s->textCapacity * 2 : 1024);
        while (next < s->textLength + length + 1) next *= 2;
        char *grown = realloc(s->out->text, next);
        if (!grown) return 0;
        s->out->text = grown;
        s->textCapacity = next;
    }
    memcpy(s->out->text + s->textLength, data, length);
    s->textLength += length;
    s->out->text[s->textLength] = 0;
    return 1;
}

static void fail(state *s, const char *message) {
    if (!s->out->error[0]) {
        snprintf(s->out->error, sizeof s->out->error, "%s at line %lu", message,
                 (unsigned long)XML_GetCurrentLineNumber(s->parser));
    }
    XML_StopParser(s->parser, XML_FALSE);
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
        if (s->out->count == s->capacity) {
            size_t next = s->capacity ? s->capacity * 2 : 256;
            wf_gpx_point *grown = realloc(s->out->points, next * sizeof *grown);
            if (!grown) { fail(s, "out of memory"); return; }
            s->out->points = grown;
            s->capacity = next;
        }
        s->out->points[s->out->count++] = (wf_gpx_point){la, lo, kind, -1};
        s->inPoint = 1;
        return;
    }
    if (s->inPoint && strcmp(element, "time") == 0) {
        s->inTime = 1;
        s->timeStart = (int64_t)s->textLength;
    }
}

static void characters(void *data, const char *text, int length) {
    state *s = data;
    if (s->inTime && length > 0 && !append_text(s, text, (size_t)length)) fail(s, "out of memory");
}

static void end(void *data, const char *name) {
    state *s = data;
    const char *element = local_name(name);
    if (strcmp(element, "gpx") == 0) { s->out->closedGPX = 1; return; }
    if (s->inTime && strcmp(element, "time") == 0) {
        s->inTime = 0;
        if (!append_text(s, "", 0)) { fail(s, "out of memory"); return; }
        s->out->points[s->out->count - 1].time = s->timeStart;
        // Keep the terminator: the next text starts after it.
        s->textLength += 1;
        if (!append_text(s, "", 0)) fail(s, "out of memory");
        return;
    }
    if (strcmp(element, "trkpt") == 0 || strcmp(element, "rtept") == 0 || strcmp(element, "wpt") == 0) s->inPoint = 0;
}

int wf_gpx_read(const char *bytes, size_t length, wf_gpx *out) {
    memset(out, 0, sizeof *out);
    state s = {0};
    s.out = out;
    XML_Parser parser = XML_ParserCreate("UTF-8");
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
    return out->error[0] ? 1 : 0;
}

void wf_gpx_free(wf_gpx *gpx) {
    free(gpx->points);
    free(gpx->text);
    gpx->points = NULL;
    gpx->text = NULL;
}
