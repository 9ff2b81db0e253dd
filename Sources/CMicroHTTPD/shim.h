// libmicrohttpd for Swift. Its start and info calls are variadic, which Swift cannot call, so small inline
// wrappers fix the argument lists Wayfinder uses.
#include <stdarg.h>
#include <stdint.h>
#include <malloc.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <microhttpd.h>

typedef void *(*wf_mhd_uri_logger)(void *context, const char *uri, struct MHD_Connection *connection);

/// Starts an epoll daemon with a thread pool. `uri_logger` receives each request's target as sent (before
/// decoding) and returns the request's context; `completed` and `connections` report the ends of requests and
/// the opening and closing of connections.
static inline struct MHD_Daemon *wf_mhd_start(unsigned int flags, uint16_t port, const struct sockaddr *address,
                                              unsigned int threads, unsigned int timeout_seconds,
                                              size_t memory_limit, unsigned int connection_limit,
                                              unsigned int per_client_limit, MHD_AccessHandlerCallback handler,
                                              wf_mhd_uri_logger uri_logger, MHD_RequestCompletedCallback completed,
                                              MHD_NotifyConnectionCallback connections, void *context) {
    // One thread is the polling thread alone: asking for a pool of one (or zero) only earns a warning.
    unsigned int pool = threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_CONNECTION_LIMIT;
    unsigned int pool_value = threads > 1 ? threads : connection_limit;
    return MHD_start_daemon(flags, port, NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, address,
                            pool, pool_value,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_client_limit,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_logger, context,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_NOTIFY_CONNECTION, connections, context,
                            MHD_OPTION_END);
}

static inline uint16_t wf_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

static inline int wf_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

static inline void *wf_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/// Gives the heap's free memory back to the system (glibc's malloc_trim): what a large request allocated (a
/// triangulation, a table) otherwise stays with the process, in the arena of the thread that computed it.
static inline void wf_release_free_memory(void) { malloc_trim(0); }

typedef struct {
    int content_lengths, differing_lengths, transfer_encodings, chunked, hosts;
    const char *first_length;
} wf_mhd_framing;

static enum MHD_Result wf_mhd_count_header(void *context, enum MHD_ValueKind kind, const char *key, const char *value) {
    wf_mhd_framing *f = context;
    (void)kind;
    if (!key) return MHD_YES;
    if (strcasecmp(key, "Content-Length") == 0) {
        if (f->content_lengths++ == 0) f->first_length = value;
        else if (!value || !f->first_length || strcmp(value, f->first_length) != 0) f->differing_lengths = 1;
    } else if (strcasecmp(key, "Transfer-Encoding") == 0) {
        f->transfer_encodings++;
        // libmicrohttpd reads a chunked body only for exactly this value; anything else it waits on forever.
        f->chunked = value && strcasecmp(value, "chunked") == 0;
    } else if (strcasecmp(key, "Host") == 0) {
        f->hosts++;
    }
    return MHD_YES;
}

/// What is wrong with a request's framing, checked at the first call of the access handler, before any body is
/// read; 0 when nothing is. libmicrohttpd 0.9.75 checks none of these itself:
/// - 400 for Content-Length headers that differ, or one beside Transfer-Encoding (RFC 9112 §6.3: behind a proxy
///   that reads them otherwise, the rest of the body would be a second, smuggled request);
/// - 501 for a Transfer-Encoding other than chunked (it would wait for the connection to close, then time out);
/// - 400 for an HTTP/1.1 request without exactly one Host (RFC 9112 §3.2);
/// - 400 for a NUL in the target, raw: the target libmicrohttpd logged (`raw_length` bytes, up to the NUL) is
///   shorter than the span from the target to the version in its request line buffer.
static inline unsigned int wf_mhd_framing_error(struct MHD_Connection *connection, const char *url, const char *version,
                                                size_t raw_length, const char **message) {
    wf_mhd_framing f = {0};
    MHD_get_connection_values(connection, MHD_HEADER_KIND, wf_mhd_count_header, &f);
    if (f.differing_lengths) { *message = "conflicting Content-Length headers"; return 400; }
    if (f.content_lengths && f.transfer_encodings) { *message = "both Content-Length and Transfer-Encoding"; return 400; }
    if (f.transfer_encodings > 1 || (f.transfer_encodings == 1 && !f.chunked)) {
        *message = "only the chunked transfer coding is implemented";
        return 501;
    }
    if (version && strcmp(version, "HTTP/1.0") != 0 && f.hosts != 1) {
        *message = f.hosts ? "more than one Host header" : "an HTTP/1.1 request needs a Host header";
        return 400;
    }
    if (url && version && version > url) {
        // The request line is "target SP version": the separator (made a NUL by libmicrohttpd), and any more
        // white space the client sent.
        size_t span = (size_t)(version - url) - 1;
        while (span > 0 && (url[span - 1] == ' ' || url[span - 1] == '\t')) span--;
        if (span > raw_length && span - raw_length < (1u << 20)) { *message = "the target holds a NUL byte"; return 400; }
    }
    return 0;
}
