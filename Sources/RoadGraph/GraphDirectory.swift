import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A graph directory as `import` writes it and every command reads it:
///
///     <dir>/current -> generation-7          a symlink, replaced by an atomic rename when an import completes
///     <dir>/generation-7/driving.wfgraph     one complete import: graph files and the place index
///     <dir>/.lock                            held by the import that is writing here
///     <dir>/.staging-8/                      an import in progress (or killed: the next import removes it)
///     <dir>/.next-8                          the new link, for the moment before it replaces `current`
///
/// Readers resolve `current` once and open that generation's files, so an import that completes meanwhile never
/// mixes two imports. Wayfinder creates and deletes only these names, and never a file inside them that it did
/// not write: a directory holding anything else is refused.
public struct GraphDirectory: Sendable {
    public let path: String

    public init(_ path: String) { self.path = path }

    static let currentLink = "current"
    static let lockName = ".lock"
    static let generationPrefix = "generation-"
    static let stagingPrefix = ".staging-"
    /// The new `current` link before it is renamed over the old one.
    static let nextLinkPrefix = ".next-"
    public static let placesFileName = "places.sqlite"
    /// Every file an import writes into a generation (SQLite's journals only while the index is built).
    static let importedFiles: Set<String> = Set(TravelMode.allCases.map(GraphFormat.fileName(for:)))
        .union([placesFileName, placesFileName + "-journal", placesFileName + "-wal", placesFileName + "-shm"])
        // An import killed while it customized a graph leaves that graph's file half written in its staging.
        .union(TravelMode.allCases.map { GraphFormat.fileName(for: $0) + GraphFormat.customizingSuffix })

    /// The generation in effect: where `current` points, or the directory itself for graphs written before
    /// generations existed. Throws when there is no graph here at all.
    public func current() throws -> GraphGeneration {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw GraphDirectoryError.noGraph(path)
        }
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path + "/" + Self.currentLink) {
            // Only a generation of this directory counts: a link elsewhere is not ours to follow.
            guard Self.isGenerationName(target) else { throw GraphDirectoryError.noGraph(path) }
            return GraphGeneration(directory: path + "/" + target, name: target)
        }
        guard TravelMode.allCases.contains(where: {
            FileManager.default.fileExists(atPath: path + "/" + GraphFormat.fileName(for: $0))
        }) else { throw GraphDirectoryError.noGraph(path) }
        return GraphGeneration(directory: path, name: nil)
    }

    /// The modes the current generation has a graph for (an import may build some of them only).
    public func builtModes() throws -> [TravelMode] {
        let generation = try current()
        let modes = TravelMode.allCases.filter { FileManager.default.fileExists(atPath: generation.graphPath(for: $0)) }
        guard !modes.isEmpty else { throw GraphDirectoryError.noGraph(path) }
        return modes
    }

    /// Which files the current generation's graphs are: nil when there is no graph. An import's rename of `current`,
    /// a symlinked directory pointed elsewhere, or any mode's file replaced, overwritten or truncated in place all
    /// change it.
    public func identity(modes: [TravelMode]) -> GraphIdentity? {
        guard let generation = try? current(), !modes.isEmpty else { return nil }
        var files: [GraphIdentity.File] = []
        for mode in modes {
            var status = stat()
            guard stat(generation.graphPath(for: mode), &status) == 0 else { return nil }
            files.append(GraphIdentity.File(device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
                                            modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)))
        }
        return GraphIdentity(files: files)
    }

    static func isGenerationName(_ name: String) -> Bool {
        name.hasPrefix(generationPrefix) && UInt64(name.dropFirst(generationPrefix.count)) != nil
    }

    static func generationNumber(_ name: String) -> UInt64? {
        for prefix in [generationPrefix, stagingPrefix] where name.hasPrefix(prefix) {
            return UInt64(name.dropFirst(prefix.count))
        }
        return nil
    }
}

/// The graph files as the file system knows them: a new import is a new file, whatever its name, and a file
/// written in place has a new size or time.
public struct GraphIdentity: Equatable, Sendable {
    public struct File: Equatable, Sendable {
        public var device: UInt64
        public var inode: UInt64
        public var size: Int64
        public var modified: Int64
    }
    public var files: [File]
}

/// One complete import inside a graph directory.
public struct GraphGeneration: Sendable, Equatable {
    /// The directory holding the files.
    public let directory: String
    /// `generation-N`, or nil for a directory written before generations.
    public let name: String?

    public func graphPath(for mode: TravelMode) -> String { directory + "/" + GraphFormat.fileName(for: mode) }
    public var placesPath: String { directory + "/" + GraphDirectory.placesFileName }
}

public enum GraphDirectoryError: Error, CustomStringConvertible, Equatable {
    case noGraph(String)
    /// The directory holds a graph, but none of this mode.
    case noModeGraph(String, TravelMode)
    case foreignFiles(String, [String])
    case notADirectory(String)
    case busy(String)
    case cannotWrite(String)

    public var description: String {
        switch self {
        case .noGraph(let path): return "no graph in \(path): run 'wayfinder import <file.osm.pbf> --output \(path)' first"
        case .noModeGraph(let path, let mode):
            return "\(path) has no \(mode.rawValue) graph: import it with --modes naming \(mode.rawValue)"
        case .foreignFiles(let path, let names):
            let shown = names.sorted().prefix(5).joined(separator: ", ") + (names.count > 5 ? ", …" : "")
            return "refusing to write the graph into \(path): it holds files that Wayfinder did not write (\(shown)); "
                + "choose a new or empty directory"
        case .notADirectory(let path): return "refusing to write the graph into \(path): it is not a directory"
        case .busy(let path): return "another import is writing into \(path); try again when it has finished"
        case .cannotWrite(let why): return why
        }
    }
}

/// Writes a new generation into a graph directory: `stagingPath` receives the files, `commit()` makes them current
/// with one atomic rename of the `current` link. Killed at any moment, the directory still holds the previous
/// complete graph; the next import removes what the killed one left. Holds the directory's lock until `commit` or
/// `abandon` (or the process's end).
public final class GraphDirectoryWriter {
    public let directory: GraphDirectory
    public let stagingPath: String
    private let number: UInt64
    private var lockDescriptor: Int32
    private let createdDirectory: Bool

    /// Checks that `output` may be written (absent, empty, or a graph directory), takes its lock, removes what
    /// killed imports left, and creates the staging directory.
    public init(output: String) throws {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        let exists = fileManager.fileExists(atPath: output, isDirectory: &isDirectory)
        if exists && !isDirectory.boolValue { throw GraphDirectoryError.notADirectory(output) }
        if exists {
            let foreign = try Self.foreignEntries(in: output)
            guard foreign.isEmpty else { throw GraphDirectoryError.foreignFiles(output, foreign) }
        } else {
            do { try fileManager.createDirectory(atPath: output, withIntermediateDirectories: true) } catch {
                throw GraphDirectoryError.cannotWrite("cannot create \(output): \(error.localizedDescription)")
            }
        }
        createdDirectory = !exists
        directory = GraphDirectory(output)
        let lockPath = output + "/" + GraphDirectory.lockName
        lockDescriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lockDescriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            if !exists { rmdir(output) }
            throw GraphDirectoryError.cannotWrite("cannot write into \(output): \(reason)")
        }
        guard flock(lockDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(lockDescriptor)
            throw GraphDirectoryError.busy(output)
        }
        // Holding the lock, nothing else writes here: every staging directory, and every generation that is not
        // current, was left by an import that was killed (or replaced).
        let entries = (try? fileManager.contentsOfDirectory(atPath: output)) ?? []
        let current = try? directory.current()
        for name in entries where name.hasPrefix(GraphDirectory.stagingPrefix)
            || (GraphDirectory.isGenerationName(name) && name != current?.name)
        {
            Self.removeImportedDirectory(output + "/" + name)
        }
        for name in entries where name.hasPrefix(GraphDirectory.nextLinkPrefix) { unlink(output + "/" + name) }
        number = (entries.compactMap(GraphDirectory.generationNumber).max() ?? 0) + 1
        stagingPath = output + "/" + GraphDirectory.stagingPrefix + String(number)
        guard mkdir(stagingPath, 0o755) == 0 else {
            let reason = String(cString: strerror(errno))
            abandon()
            throw GraphDirectoryError.cannotWrite("cannot create \(stagingPath): \(reason)")
        }
    }

    deinit { releaseLock() }

    /// Entries of a directory that Wayfinder did not write there.
    static func foreignEntries(in path: String) throws -> [String] {
        let fileManager = FileManager.default
        let entries: [String]
        do { entries = try fileManager.contentsOfDirectory(atPath: path) } catch {
            throw GraphDirectoryError.cannotWrite("cannot read \(path): \(error.localizedDescription)")
        }
        return entries.filter { name in
            let full = path + "/" + name
            let isLink = (try? fileManager.destinationOfSymbolicLink(atPath: full)) != nil
            switch name {
            case GraphDirectory.currentLink:
                return !isLink
            case GraphDirectory.lockName:
                return isLink
            case _ where name.hasPrefix(GraphDirectory.nextLinkPrefix):
                return !isLink
            case _ where GraphDirectory.generationNumber(name) != nil:
                // A generation or staging directory is ours if it holds only what an import writes.
                var isDirectory: ObjCBool = false
                guard !isLink, fileManager.fileExists(atPath: full, isDirectory: &isDirectory), isDirectory.boolValue,
                      let inside = try? fileManager.contentsOfDirectory(atPath: full)
                else { return true }
                return !inside.allSatisfy(GraphDirectory.importedFiles.contains)
            case _ where GraphDirectory.importedFiles.contains(name):
                // Graphs written before generations sat directly in the directory.
                return isLink
            default:
                return true
            }
        }
    }

    /// Removes a generation or staging directory: only the files an import writes, then the directory if it is
    /// empty. Anything else someone put there stays.
    static func removeImportedDirectory(_ path: String) {
        for name in GraphDirectory.importedFiles { unlink(path + "/" + name) }
        rmdir(path)
    }

    /// Makes the staged files the current generation: flushes them to disk, renames the staging directory to
    /// `generation-N`, and points `current` at it with one rename. Then removes the previous generation.
    @discardableResult
    public func commit() throws -> GraphGeneration {
        let output = directory.path
        let previous = try? directory.current()
        let name = GraphDirectory.generationPrefix + String(number)
        let generationPath = output + "/" + name
        func fail(_ what: String) -> GraphDirectoryError {
            GraphDirectoryError.cannotWrite("cannot \(what) in \(output): \(String(cString: strerror(errno)))")
        }
        let staged = (try? FileManager.default.contentsOfDirectory(atPath: stagingPath)) ?? []
        for file in staged { Self.sync(stagingPath + "/" + file) }
        Self.sync(stagingPath)
        guard rename(stagingPath, generationPath) == 0 else { throw fail("complete the new graph") }
        let link = output + "/" + GraphDirectory.nextLinkPrefix + String(number)
        unlink(link)
        guard symlink(name, link) == 0 else { throw fail("create the link to the new graph") }
        guard rename(link, output + "/" + GraphDirectory.currentLink) == 0 else {
            let error = fail("switch to the new graph")
            unlink(link)
            throw error
        }
        Self.sync(output)
        if let previous {
            if let old = previous.name {
                Self.removeImportedDirectory(output + "/" + old)
            } else {
                // Files of a graph written before generations: replaced by the generation now current.
                for file in GraphDirectory.importedFiles { unlink(output + "/" + file) }
            }
        }
        releaseLock()
        return GraphGeneration(directory: generationPath, name: name)
    }

    /// Gives up: removes the staging directory, and the output directory too if this import created it and it
    /// holds nothing else.
    public func abandon() {
        Self.removeImportedDirectory(stagingPath)
        releaseLock()
        if createdDirectory {
            unlink(directory.path + "/" + GraphDirectory.lockName)
            rmdir(directory.path)
        }
    }

    private func releaseLock() {
        guard lockDescriptor >= 0 else { return }
        close(lockDescriptor)
        lockDescriptor = -1
    }

    private static func sync(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
