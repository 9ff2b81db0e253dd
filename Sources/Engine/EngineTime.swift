import Foundation
import RoadGraph

/// A time as a request gives it (`depart_at=2026-12-07T08:00`): the wall clock of the extract's time zone, or an
/// instant when the text carries `Z` or an offset (`2026-12-07T08:00+01:00`).
public struct ClockTime: Sendable, Equatable {
    /// Seconds since 1970-01-01 00:00 of the clock the text was written in.
    public var wallSeconds: Int64
    /// Seconds east of UTC, if the text said; nil for the extract's own local time.
    public var offset: Int?

    /// A wall-clock time of the extract's zone, in seconds since 1970-01-01 00:00 of that clock.
    public init(wallSeconds: Int64) {
        self.wallSeconds = wallSeconds
        offset = nil
    }

    /// ISO 8601: `YYYY-MM-DDTHH:MM`, seconds optional, then optionally `Z` or `±HH:MM`.
    public init(iso8601 text: String) throws {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count, range.allSatisfy({ (48...57).contains(bytes[$0]) }) else { return nil }
            return range.reduce(0) { $0 * 10 + Int(bytes[$1] - 48) }
        }
        func fail() -> EngineError {
            EngineError(.invalidValue, "'\(text)' is not a time: give it as YYYY-MM-DDTHH:MM, local to the extract (or with Z or an offset)")
        }
        guard bytes.count >= 16, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84, bytes[13] == 58,
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16),
              (1...12).contains(month), hour < 24, minute < 60 else { throw fail() }
        let monthDays = [31, year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...monthDays[month - 1]).contains(day) else { throw fail() }
        var k = 16, second = 0
        if k < bytes.count && bytes[k] == 58 {
            guard let s = number((k + 1)..<(k + 3)), s < 60 else { throw fail() }
            second = s
            k += 3
        }
        wallSeconds = LocalTime.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        if k == bytes.count {
            offset = nil
        } else if bytes[k] == 90 && k + 1 == bytes.count {  // Z
            offset = 0
        } else if (bytes[k] == 43 || bytes[k] == 45) && k + 6 == bytes.count && bytes[k + 3] == 58,
                  let h = number((k + 1)..<(k + 3)), let m = number((k + 4)..<(k + 6)), h <= 14, m < 60 {
            offset = (bytes[k] == 45 ? -1 : 1) * (h * 3600 + m * 60)
        } else {
            throw fail()
        }
    }
}

/// When a request travels: leaving at a time (`depart_at`), or arriving by one (`arrive_by`).
public enum TravelTime: Sendable, Equatable {
    case departure(ClockTime)
    case arrival(ClockTime)
}

extension RoadGraph {
    /// The extract's local time for a request's clock time: as written where it gave no offset, else the instant
    /// in the graph's time zone (UTC where the import was given none).
    public func localTime(_ time: ClockTime) -> LocalTime {
        guard let offset = time.offset else { return LocalTime(wallSeconds: time.wallSeconds) }
        let utc = time.wallSeconds - Int64(offset)
        let zone = timeZoneName.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
        return LocalTime(wallSeconds: utc + Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(utc)))))
    }
}
