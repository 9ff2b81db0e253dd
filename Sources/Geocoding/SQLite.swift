import CSQLite
import Foundation

/// A thin SQLite connection: prepared statements with positional binding, rows as arrays of values.
final class SQLiteDatabase: @unchecked Sendable {
    enum Value: Equatable {
        case null, integer(Int64), real(Double), text(String), blob([UInt8])

        var string: String? { if case .text(let s) = self { return s }; return nil }
        var double: Double? {
            switch self {
            case .real(let d): return d
            case .integer(let i): return Double(i)
            default: return nil
            }
        }
        var int: Int64? { if case .integer(let i) = self { return i }; return nil }
        var bytes: [UInt8]? { if case .blob(let b) = self { return b }; return nil }
    }

    struct Error: Swift.Error, CustomStringConvertible {
        var description: String
    }

    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    private let lock = NSLock()
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(path: String, readOnly: Bool) throws {
        let flags = readOnly ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db)
            throw Error(description: "cannot open place index \(path): \(message)")
        }
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close(db)
    }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw Error(description: message.map { String(cString: $0) } ?? "SQLite error")
        }
    }

    /// Runs a statement (cached by its text) and returns all rows. Serialised: one connection, many threads.
    @discardableResult
    func query(_ sql: String, _ arguments: [Value] = []) throws -> [[Value]] {
        lock.lock()
        defer { lock.unlock() }
        let statement: OpaquePointer
        if let cached = statements[sql] {
            statement = cached
        } else {
            var prepared: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &prepared, nil) == SQLITE_OK, let prepared else {
                throw Error(description: "\(String(cString: sqlite3_errmsg(db))) in \(sql)")
            }
            statements[sql] = prepared
            statement = prepared
        }
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (i, argument) in arguments.enumerated() {
            let index = Int32(i + 1)
            switch argument {
            case .null: sqlite3_bind_null(statement, index)
            case .integer(let v): sqlite3_bind_int64(statement, index, v)
            case .real(let v): sqlite3_bind_double(statement, index, v)
            case .text(let v): sqlite3_bind_text(statement, index, v, -1, Self.transient)
            case .blob(let v): _ = v.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), Self.transient) }
            }
        }
        var rows: [[Value]] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw Error(description: String(cString: sqlite3_errmsg(db))) }
            var row: [Value] = []
            for c in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, c) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, c)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, c)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, c))))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, c))
                    let bytes = sqlite3_column_blob(statement, c)
                    row.append(.blob(count > 0 ? Array(UnsafeRawBufferPointer(start: bytes, count: count)) : []))
                default: row.append(.null)
                }
            }
            rows.append(row)
        }
        return rows
    }
}
