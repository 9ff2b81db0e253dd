import Routing

/// A route with its turn-by-turn directions: what the engine answers, and what every format writes.
public struct GuidedRoute: Sendable {
    public var route: Route
    public var directions: Directions

    public init(route: Route, directions: Directions) {
        self.route = route
        self.directions = directions
    }
}
