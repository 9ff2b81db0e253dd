import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPService
import RoadGraph
import Testing

/// OSRM 26's POST form: the request in a JSON body, for requests too long for a URL. The same answer as the GET it
/// stands for, and OSRM's refusals for wrong types, checked against OSRM itself where its wheel is installed.
@Suite struct OSRMRequestBodyTests {
    static func body(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// GET and POST forms of the same requests on the drawn street: byte for byte the same answer.
    @Test func aBodyAnswersAsItsURL() throws {
        let (map, service) = try OSRMCompatibilityTests.streetWithLoop()
        let p = [map.position(between: "a", "b", at: 0.3), map.position(between: "d", "e", at: 0.6),
                 map.position(between: "b", "c", at: 0.5)]
        let text = p.map(OSRMCompatibilityTests.text), pairs = p.map { [$0.longitude, $0.latitude] }
        let cases: [(get: String, post: String, body: [String: Any])] = [
            ("/route/v1/driving/\(text[0]);\(text[1])?steps=true&overview=full&geometries=geojson&annotations=true&alternatives=2",
             "/route/v1/driving", ["coordinates": Array(pairs[0...1]), "steps": true, "overview": "full", "geometries": "geojson",
                                   "annotations": true, "alternatives": 2]),
            ("/route/v1/driving/\(text[0]);\(text[1])?bearings=;90,90&radiuses=unlimited;50&approaches=curb;&continue_straight=false",
             "/route/v1/driving/", ["coordinates": Array(pairs[0...1]), "bearings": [NSNull(), [90, 90]],
                                    "radiuses": ["unlimited", 50], "approaches": ["curb", NSNull()], "continue_straight": false]),
            ("/route/v1/driving/\(text[0]);\(text[1])?annotations=nodes,duration&skip_waypoints=true&language=zh",
             "/route/v1/car", ["coordinates": Array(pairs[0...1]), "annotations": ["nodes", "duration"], "skip_waypoints": true,
                               "language": "zh"]),
            ("/route/v1/driving/\(text[0]);\(text[1])?steps=true&deviations=names,tidy_names", "/route/v1/driving",
             ["coordinates": Array(pairs[0...1]), "steps": true, "deviations": "names,tidy_names"]),
            ("/table/v1/driving/\(text.joined(separator: ";"))?sources=0;2&annotations=duration,distance&scale_factor=2",
             "/table/v1/driving", ["coordinates": pairs, "sources": [0, 2], "annotations": ["duration", "distance"], "scale_factor": 2]),
            ("/nearest/v1/driving/\(text[0])?number=2&exclude=toll", "/nearest/v1/driving",
             ["coordinates": [pairs[0]], "number": 2, "exclude": ["toll"]]),
            ("/match/v1/driving/\(text[0]);\(text[2])?timestamps=0;30&tidy=true&steps=true", "/match/v1/driving",
             ["coordinates": [pairs[0], pairs[2]], "timestamps": [0, 30], "tidy": true, "steps": true]),
        ]
        for (get, post, body) in cases {
            let viaURL = service.handle(Self.request(get))
            let viaBody = service.handle(HTTPRequest(method: "POST", path: post, rawTarget: post, body: Array(Self.body(body).utf8)))
            #expect(viaURL.status == 200, "\(get): \(String(decoding: viaURL.body, as: UTF8.self))")
            #expect(viaBody.status == viaURL.status && viaBody.body == viaURL.body,
                    "\(post) \(Self.body(body)): \(String(decoding: viaBody.body, as: UTF8.self).prefix(300))")
        }
    }

    static func request(_ target: String) -> HTTPRequest {
        let parts = target.split(separator: "?", maxSplits: 1)
        let query = (parts.count > 1 ? parts[1].split(separator: "&") : []).map { pair -> (key: String, value: String) in
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(kv[0]), kv.count > 1 ? String(kv[1]) : "")
        }
        return HTTPRequest(path: String(parts[0]), query: query, rawTarget: target)
    }

    /// Bodies OSRM 26.10 refuses or takes, with its status and code (observed on osrm-routed): each member typed as
    /// OSRM types it.
    static func cases(_ two: [[Double]]) -> [(path: String, body: String, status: Int, code: String)] {
        func with(_ extra: String) -> String {
            "{\"coordinates\":[[\(two[0][0]),\(two[0][1])],[\(two[1][0]),\(two[1][1])]]\(extra.isEmpty ? "" : ",")\(extra)}"
        }
        let one = "{\"coordinates\":[[\(two[0][0]),\(two[0][1])]]"
        return [
            ("/route/v1/driving", with(""), 200, "Ok"),
            ("/route/v1/driving", with(#""overview":false"#), 400, "InvalidQuery"),
            ("/route/v1/driving", with(#""overview":"false""#), 200, "Ok"),
            ("/route/v1/driving", with(#""steps":"true""#), 400, "InvalidQuery"),
            ("/route/v1/driving", with(#""alternatives":1.0"#), 400, "InvalidQuery"),
            ("/route/v1/driving", with(#""alternatives":4"#), 400, "TooBig"),
            ("/route/v1/driving", with(#""annotations":"speed""#), 400, "InvalidQuery"),
            ("/route/v1/driving", with(#""annotations":["speed","nodes"]"#), 200, "Ok"),
            ("/route/v1/driving", with(#""annotations":["foo"]"#), 400, "InvalidQuery"),
            ("/route/v1/driving", with(#""bearings":[[0],null]"#), 400, "InvalidQuery"),
            ("/route/v1/driving", with(#""bearings":[null,[90,180]]"#), 200, "Ok"),
            ("/route/v1/driving", with(#""radiuses":["Unlimited",50]"#), 400, "InvalidQuery"),
            ("/route/v1/driving", with(#""radiuses":[50]"#), 400, "InvalidOptions"),
            ("/route/v1/driving", with(#""hints":["anything",null]"#), 200, "Ok"),
            ("/route/v1/driving", with(#""approaches":["kerb",null]"#), 400, "InvalidQuery"),
            ("/route/v1/driving", with(#""exclude":"toll""#), 400, "InvalidQuery"),
            ("/route/v1/driving", with(#""continue_straight":"default""#), 200, "Ok"),
            ("/route/v1/driving", with(#""continue_straight":1"#), 400, "InvalidQuery"),
            ("/route/v1/driving", with(#""format":"xml""#), 400, "InvalidQuery"),
            ("/route/v1/driving", with(#""waypoints":["0"]"#), 400, "InvalidQuery"),
            ("/route/v1/driving", #"{"coordinates":"1,2;3,4"}"#, 400, "InvalidQuery"),
            ("/route/v1/driving", #"{"coordinates":[["1","2"],[3,4]]}"#, 400, "InvalidQuery"),
            ("/route/v1/driving", one + "}", 400, "InvalidOptions"),
            ("/route/v1/driving", #"{"steps":true}"#, 400, "InvalidQuery"),
            ("/route/v1/driving", "", 400, "InvalidQuery"),
            ("/route/v1/driving", "[1]", 400, "InvalidQuery"),
            ("/route/v1/driving", "{bad", 400, "InvalidQuery"),
            ("/route/v1/driving/1,2;3,4", with(""), 400, "InvalidUrl"),
            ("/trip/v1/driving", with(""), 400, "NotImplemented"),
            ("/nowhere/v1/driving", with(""), 400, "InvalidService"),
            ("/route/v2/driving", with(""), 400, "InvalidVersion"),
            ("/table/v1/driving", with(#""sources":"all""#), 400, "InvalidQuery"),
            ("/table/v1/driving", with(#""sources":[5]"#), 400, "InvalidOptions"),
            ("/table/v1/driving", with(#""annotations":false"#), 200, "Ok"),
            ("/table/v1/driving", with(#""fallback_speed":"10""#), 400, "InvalidQuery"),
            ("/table/v1/driving", with(#""scale_factor":0"#), 400, "InvalidOptions"),
            ("/nearest/v1/driving", one + #","number":"3"}"#, 400, "InvalidQuery"),
            ("/nearest/v1/driving", one + #","number":0}"#, 400, "InvalidOptions"),
            ("/nearest/v1/driving", with(#""number":2"#), 200, "Ok"),
            ("/match/v1/driving", with(#""timestamps":[0.5,10]"#), 400, "InvalidQuery"),
            ("/match/v1/driving", with(#""gaps":"SPLIT""#), 400, "InvalidQuery"),
        ]
    }

    @Test func bodiesAreTypedAsOSRMTypesThem() throws {
        let (map, service) = try OSRMCompatibilityTests.streetWithLoop()
        let two = [map.position(between: "a", "b", at: 0.3), map.position(between: "b", "c", at: 0.6)].map { [$0.longitude, $0.latitude] }
        for (path, body, status, code) in Self.cases(two) {
            let response = service.handle(HTTPRequest(method: "POST", path: path, rawTarget: path, body: Array(body.utf8)))
            let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
            #expect(response.status == status && object["code"] as? String == code, "\(path) \(body): \(object)")
        }
        // A member no service knows is named, unless the request asks for OSRM's answer (OSRM ignores it).
        let typo = #"{"coordinates":[[\#(two[0][0]),\#(two[0][1])],[\#(two[1][0]),\#(two[1][1])]],"stpes":true"#
        for (compat, code) in [("", "InvalidQuery"), (#","compat":"osrm""#, "Ok")] {
            let response = service.handle(HTTPRequest(method: "POST", path: "/route/v1/driving", rawTarget: "/route/v1/driving",
                                                      body: Array((typo + compat + "}").utf8)))
            #expect(String(decoding: response.body, as: UTF8.self).contains("\"code\":\"\(code)\""))
        }
    }

    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func bodiesAsOSRM() throws {
        let (map, service) = try OSRMCompatibilityTests.streetWithLoop()
        let osrm = try OSRMOracle(map: map, profile: "car")
        let two = [map.position(between: "a", "b", at: 0.3), map.position(between: "b", "c", at: 0.6)].map { [$0.longitude, $0.latitude] }
        for (path, body, _, _) in Self.cases(two) {
            let theirs = try osrm.post(path, body: body)
            let response = service.handle(HTTPRequest(method: "POST", path: path, rawTarget: path, body: Array(body.utf8)))
            let ours = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
            #expect(response.status == theirs.status && ours["code"] as? String == theirs.object["code"] as? String,
                    "\(path) \(body): Wayfinder \(response.status) \(ours), OSRM \(theirs.status) \(theirs.object)")
            if theirs.object["code"] as? String == "Ok" {
                #expect(Set(ours.keys) == Set(theirs.object.keys), "\(path) \(body): the same members")
            }
        }
    }

    /// Over a socket: JSON only, a body within the limit, CORS preflights.
    @Test func serverTakesJSONBodiesWithinItsLimit() throws {
        let server = try ServerTests.Server(extra: ["--max-body-size", "1024"])
        defer { _ = server.stop() }
        let json = "Content-Type: application/json; charset=utf-8"
        let route = #"{"coordinates":[[24.9384,60.1699],[24.9412,60.1756]],"overview":"false"}"#
        let ok = try RawHTTP.request(port: server.port, method: "POST", target: "/route/v1/driving", headers: [json], body: route)
        #expect(ok.status == 200 && ok.body.contains(#""code":"Ok""#), "\(ok.body.prefix(200))")
        let text = try RawHTTP.request(port: server.port, method: "POST", target: "/route/v1/driving",
                                       headers: ["Content-Type: text/plain"], body: route)
        #expect(text.status == 415 && text.body.contains("InvalidContentType"))
        let padded = String(route.dropLast()) + #","pad":""# + String(repeating: " ", count: 1100) + "\"}"
        let large = try RawHTTP.request(port: server.port, method: "POST", target: "/route/v1/driving", headers: [json], body: padded)
        #expect(large.status == 413 && large.body.contains("TooBig"))
        let query = try RawHTTP.request(port: server.port, method: "POST", target: "/route/v1/driving?steps=true",
                                        headers: [json], body: route)
        #expect(query.status == 400 && query.body.contains("InvalidUrl"))
        let preflight = try RawHTTP.request(port: server.port, method: "OPTIONS", target: "/route/v1/driving",
                                            headers: ["Origin: https://example.org", "Access-Control-Request-Method: POST"])
        #expect(preflight.status == 204 && preflight.headers["access-control-allow-methods"] == "GET, HEAD, POST, OPTIONS")
        #expect(preflight.headers["access-control-allow-headers"]?.contains("Content-Type") == true)
        let health = try RawHTTP.request(port: server.port, method: "POST", target: "/health", headers: [json], body: "{}")
        #expect(health.status == 405)
    }
}

extension OSRMOracle {
    /// OSRM's answer to a POST with a JSON body.
    func post(_ path: String, body: String) throws -> (status: Int, object: [String: Any]) {
        var request = URLRequest(url: URL(string: base + path)!, timeoutInterval: 30)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        let semaphore = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: (Int, Data)?
        URLSession.shared.dataTask(with: request) { data, response, _ in
            result = ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data())
            semaphore.signal()
        }.resume()
        semaphore.wait()
        let object = try JSONSerialization.jsonObject(with: result!.1) as? [String: Any] ?? [:]
        return (result!.0, object)
    }
}
