// libmicrohttpd for Swift. Its start and info calls are variadic, which Swift cannot call, so small inline
// wrappers fix the argument lists Wayfinder uses.
#include <stdarg.h>
#include <stdint.h>
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
