/// Whose answer a request wants. Wayfinder's own rules differ from OSRM's in a few documented places (the rest
/// of a drive on foot, steps under 10 m, names compared as a person reads them: GUIDANCE.md and PROFILES.md list
/// them with their reasons). `osrm` turns every one of those off, so that a client moving from OSRM gets OSRM's
/// answer to the same request.
public enum Compatibility: String, Sendable, CaseIterable {
    case wayfinder
    case osrm

    /// `compat=osrm` in a request or on the command line.
    public init?(name: String) {
        self.init(rawValue: name.lowercased())
    }
}
