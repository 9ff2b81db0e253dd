import RoadGraph
import Routing

public struct DirectionsOptions: Sendable {
    public var language = "en"
    public var units = Units.metric
    public init(language: String = "en", units: Units = .metric) {
        self.language = language
        self.units = units
    }
}

/// A route's turn-by-turn steps, leg by leg, with instructions in the requested language.
public struct Directions: Sendable {
    public let legs: [[GuidanceStep]]
    public let phrases: PhraseBook
    public let options: DirectionsOptions

    public init(route: Route, graph: RoadGraph, options: DirectionsOptions = DirectionsOptions()) throws {
        // Street names follow any language the data has (name:xx); instructions fall back to English where no
        // phrase file exists for it.
        let phrases = try (try? PhraseBook.load(language: options.language)) ?? PhraseBook.load(language: "en")
        self.phrases = phrases
        self.options = options
        let builder = ManeuverBuilder(graph: graph, language: options.language)
        legs = route.legs.enumerated().map { index, leg in
            let isLast = index == route.legs.count - 1
            return builder.steps(for: leg, waypointNumber: isLast ? nil : index + 1).map { step in
                var step = step
                step.instruction = phrases.instruction(for: step)
                return step
            }
        }
    }
}
