import Foundation

/// Finds a module's resources (declared in Package.swift) without trapping, as SwiftPM's `Bundle.module` does when
/// they are missing: beside the executable, where `swift build` puts them and where a copy of the binary must keep
/// them (`Wayfinder_<Module>.resources`), else in the source tree the binary was built from.
public enum ResourceDirectory {
    /// `resource` (a file or directory the module copies) of `module`; `sourceFile` is `#filePath` of a file in the
    /// module's source directory. Nil where neither place has it.
    public static func url(module: String, resource: String, sourceFile: String,
                           besideExecutableIn executableDirectory: URL = Bundle.main.bundleURL) -> URL? {
        let beside = executableDirectory.appendingPathComponent(bundleName(module)).appendingPathComponent(resource)
        let source = URL(fileURLWithPath: sourceFile).deletingLastPathComponent().appendingPathComponent(resource)
        return [beside, source].first { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// The directory `swift build` writes a module's resources to, beside the executable.
    public static func bundleName(_ module: String) -> String { "Wayfinder_\(module).resources" }
}
