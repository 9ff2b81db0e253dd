import Foundation

/// Runs a program with posix_spawn and waits with waitpid, its output going to files. For scripts that start
/// daemons (nginx, replicas, Dask workers): Foundation's `Process` was seen to miss such a script's exit and wait
/// forever on its zombie, and a daemon that inherits a pipe keeps `readDataToEndOfFile` from ever returning.
enum Subprocess {
    static func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:],
                    timeout: Double = 300) throws -> CommandLineTests.Run {
        let directory = try TemporaryDirectory()
        let outPath = directory.path + "/stdout", errPath = directory.path + "/stderr"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // The test process's sockets and pipes stay here: a daemon holding one would outlive its test with it.
        // (glibc ≥ 2.34 has it, but only under _GNU_SOURCE, so it is looked up; nil is RTLD_DEFAULT.)
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let argv = ([tool] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tool, &actions, nil, argv, envp)
        guard spawned == 0 else { throw OracleMismatch(message: "cannot start \(tool): \(String(cString: strerror(spawned)))") }
        // Bounded: a hung script is killed and reported, never waited on forever.
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { break }
            if r < 0 && errno != EINTR { throw OracleMismatch(message: "waitpid: \(String(cString: strerror(errno)))") }
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw OracleMismatch(message: "\(tool) \(arguments.first ?? "") did not finish in \(Int(timeout)) s")
            }
            usleep(10_000)
        }
        // WIFEXITED / WEXITSTATUS by hand (the C macros are not imported).
        let exited = status & 0x7f == 0
        let code = exited ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let read = { (path: String) in String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) }
        return CommandLineTests.Run(status: code, stdout: read(outPath), stderr: read(errPath))
    }
}
