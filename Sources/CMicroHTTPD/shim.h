// libmicrohttpd for Swift. Its start and info calls are variadic, which Swift cannot call, so two small inline
// wrappers fix the argument lists Wayfinder uses.
#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

static inline struct MHD_Daemon *wf_mhd_start(unsigned int flags, uint16_t port, const struct sockaddr *address,
                                              unsigned int threads, unsigned int timeout_seconds,
                                              size_t memory_limit, MHD_AccessHandlerCallback handler,
                                              void *context) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_END);
}

static inline uint16_t wf_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}
