import Foundation
import Geocoding
import RoadGraph
import Routing
import Testing

/// The place index on a hand-drawn town: accents, typos, prefixes, word order, CJK, boundaries, reverse, search.
@Suite struct GeocodingTests {
    /// Testland (country) containing Kaupunki (city); two streets, addresses, a school and a restaurant.
    static func town(waysUnsorted: Bool = false) throws -> (TestMap, Geocoder) {
        let map = TestMap("""
            p                                   q
                  m                        u
               a     b     c     d
                  s     r
                                       x
               e     f     g
                                 z
            t                                   w
            """, gridSize: 20)
        map.way("abcd", ["highway": "residential", "name": "Lönnrotinkatu", "name:sv": "Lönnrotsgatan"])
        map.way("efg", ["highway": "residential", "name": "Mannerheimintie"])
        map.way("ae", ["highway": "residential", "name": "Kalevankatu"])
        map.tagNode("s", ["addr:street": "Lönnrotinkatu", "addr:housenumber": "5", "addr:postcode": "00120"])
        map.tagNode("r", ["addr:street": "Lönnrotinkatu", "addr:housenumber": "7"])
        map.tagNode("m", ["amenity": "school", "name": "Kallion koulu", "addr:street": "Lönnrotinkatu", "addr:housenumber": "1"])
        map.tagNode("x", ["amenity": "restaurant", "name": "Ravintola Äitee"])
        map.tagNode("u", ["place": "city", "name": "北京市", "name:en": "Beijing"])
        map.tagNode("z", ["place": "suburb", "name": "Kallio", "name:zh": "卡里奥"])
        map.tagNode("b", ["place": "square", "name": "Senaatintori", "name:en": "Helsinki Senate Square"])
        map.tagNode("c", ["amenity": "bicycle_rental", "name": "Senaatintori kaupunkipyöräasema",
                          "name:en": "Senate Square city bike station"])
        let ring = map.way("pqwtp", [:])
        map.relation([("way", ring, "outer")], ["type": "boundary", "boundary": "administrative", "admin_level": "2",
                                                "name": "Testland", "ISO3166-1:alpha2": "TL"])
        let city = map.way("pqwtp", [:])
        map.relation([("way", city, "outer")], ["type": "boundary", "boundary": "administrative", "admin_level": "8", "name": "Kaupunki"])
        map.waysUnsorted = waysUnsorted
        _ = try map.build()
        return (map, try Geocoder(graphDirectory: map.graphDirectory))
    }

    @Test func accentsCaseTyposPrefixesAndWordOrder() throws {
        let (_, geocoder) = try Self.town()
        #expect(try geocoder.forward("lonnrotinkatu").first?.name == "Lönnrotinkatu")
        #expect(try geocoder.forward("LÖNNROTINKATU").first?.name == "Lönnrotinkatu")
        #expect(try geocoder.forward("Lönrotinkatu").first?.name == "Lönnrotinkatu", "one letter missing")
        #expect(try geocoder.forward("Lonnrotinaktu").first?.name == "Lönnrotinkatu", "two letters swapped")
        #expect(try geocoder.forward("Mannerh").first?.name == "Mannerheimintie", "search as you type")
        #expect(try geocoder.forward("Lönnrotsgatan").first?.name == "Lönnrotinkatu", "name:sv")
        #expect(try geocoder.forward("aitee").first?.name == "Ravintola Äitee")
        let address = try #require(try geocoder.forward("Lönnrotinkatu 5").first)
        #expect(address.kind == "address" && address.subThoroughfare == "5")
        #expect(try geocoder.forward("5 lonnrotinkatu").first?.subThoroughfare == "5")
        #expect(try geocoder.forward("Lönnrotinkatu 7, Kaupunki").first?.subThoroughfare == "7")
        #expect(try geocoder.structured(street: "Lonnrotinkatu", housenumber: "7", city: nil, postcode: nil).first?.subThoroughfare == "7")
        #expect(try geocoder.forward("zzzzqqq").isEmpty)
        // Of two names holding the words, the one they cover most.
        #expect(try geocoder.forward("Senate Square").first?.name == "Senaatintori")
        #expect(try geocoder.forward("Senate Square bike").first?.name == "Senaatintori kaupunkipyöräasema")
    }

    @Test func cjkNamesMatchByCharacters() throws {
        let (_, geocoder) = try Self.town()
        #expect(try geocoder.forward("北京").first?.name == "北京市")
        #expect(try geocoder.forward("北京市").first?.name == "北京市")
        #expect(try geocoder.forward("Beijing").first?.name == "北京市")
        #expect(try geocoder.forward("卡里奥").first?.name == "Kallio")
        #expect(try geocoder.forward("Kallio", language: "zh").first?.name == "卡里奥", "names shown in the requested language")
    }

    @Test func resultsKnowTheirAreas() throws {
        let (_, geocoder) = try Self.town()
        let school = try #require(try geocoder.forward("Kallion koulu").first)
        #expect(school.locality == "Kaupunki" && school.country == "Testland" && school.isoCountryCode == "TL")
        #expect(school.category == "amenity=school")
    }

    @Test func boundariesOfAnUnsortedFileAreAssembled() throws {
        let (map, geocoder) = try Self.town(waysUnsorted: true)
        let place = try #require(try geocoder.reverse(map.position("s")))
        #expect(place.subThoroughfare == "5" && place.locality == "Kaupunki" && place.isoCountryCode == "TL", "\(place)")
    }

    /// Numbers along an interpolation line, a house number without a street, a building mapped as a multipolygon.
    @Test func interpolationInferredStreetsAndMultipolygonAddresses() throws {
        let map = TestMap("""
            a     b     c     d
              i       j

            e     f     g
              k
                 n  o
                 m  l
            """, gridSize: 20)
        map.way("abcd", ["highway": "residential", "name": "Kirkkokatu"])
        map.way("efg", ["highway": "residential", "name": "Mannerheimintie"])
        map.tagNode("i", ["addr:street": "Kirkkokatu", "addr:housenumber": "1"])
        map.tagNode("j", ["addr:street": "Kirkkokatu", "addr:housenumber": "9"])
        map.way("ij", ["addr:interpolation": "odd"])
        map.tagNode("k", ["addr:housenumber": "12"])
        let ring = map.way("nolmn", [:])
        map.relation([("way", ring, "outer")], ["type": "multipolygon", "building": "yes",
                                                "addr:street": "Mannerheimintie", "addr:housenumber": "20"])
        _ = try map.build()
        let geocoder = try Geocoder(graphDirectory: map.graphDirectory)

        let five = try #require(try geocoder.forward("Kirkkokatu 5").first)
        #expect(five.subThoroughfare == "5" && five.category == "addr:interpolation")
        #expect(Geo.distance(five.coordinate, map.position(between: "i", "j", at: 0.5)) < 1, "halfway from 1 to 9")
        for number in ["3", "7"] { #expect(try geocoder.forward("Kirkkokatu \(number)").first?.subThoroughfare == number) }
        #expect(try geocoder.forward("Kirkkokatu 4").first?.subThoroughfare != "4", "odd numbers only")

        let twelve = try #require(try geocoder.forward("Mannerheimintie 12").first)
        #expect(twelve.subThoroughfare == "12" && Geo.distance(twelve.coordinate, map.position("k")) < 1)
        #expect(try geocoder.reverse(map.position("k"))?.thoroughfare == "Mannerheimintie")

        let building = try #require(try geocoder.forward("Mannerheimintie 20").first)
        #expect(building.osmType == "relation" && building.subThoroughfare == "20")
        let middle = map.position(between: "n", "l", at: 0.5)
        #expect(Geo.distance(building.coordinate, middle) < 1, "the middle of the building")
    }

    /// Interpolation lines with ends that give no numbers to place: nothing is invented, the import still succeeds.
    @Test func badInterpolationLinesAddNothing() throws {
        let map = TestMap("""
            a     b     c     d
              i   j   k   l   m   n
            """, gridSize: 20)
        map.way("abcd", ["highway": "residential", "name": "Kirkkokatu"])
        map.tagNode("i", ["addr:street": "Kirkkokatu", "addr:housenumber": "A"])
        map.tagNode("j", ["addr:street": "Kirkkokatu", "addr:housenumber": "9"])
        map.way("ij", ["addr:interpolation": "odd"])  // a letter at one end
        map.tagNode("k", ["addr:street": "Kirkkokatu", "addr:housenumber": "1"])
        map.tagNode("l", ["addr:street": "Kirkkokatu", "addr:housenumber": "900001"])
        map.way("kl", ["addr:interpolation": "all"])  // far more numbers than a street has
        map.tagNode("m", ["addr:street": "Kirkkokatu", "addr:housenumber": "20"])
        map.tagNode("n", ["addr:street": "Kirkkokatu", "addr:housenumber": "30"])
        map.way("mn", ["addr:interpolation": "banana"])  // an unknown scheme
        _ = try map.build()
        let geocoder = try Geocoder(graphDirectory: map.graphDirectory)
        for number in ["3", "5", "1000", "22", "25"] {
            #expect(try geocoder.forward("Kirkkokatu \(number)").first?.subThoroughfare != number, "\(number)")
        }
        #expect(try geocoder.forward("Kirkkokatu 20").first?.subThoroughfare == "20", "the mapped ends stay")
    }

    @Test func reverseGivesAddressThenStreetThenArea() throws {
        let (map, geocoder) = try Self.town()
        let atAddress = try #require(try geocoder.reverse(map.position("s")))
        #expect(atAddress.thoroughfare == "Lönnrotinkatu" && atAddress.subThoroughfare == "5" && atAddress.postalCode == "00120")
        #expect(atAddress.locality == "Kaupunki" && atAddress.country == "Testland" && (atAddress.distance ?? 99) < 1)
        // Beside the street, far from any address: the street.
        let nearStreet = try #require(try geocoder.reverse(map.position(between: "f", "g", at: 0.5), radius: 20))
        #expect(nearStreet.kind == "street" && nearStreet.thoroughfare == "Mannerheimintie", "\(nearStreet)")
        // In the middle of nowhere inside the country: the area.
        let inArea = try #require(try geocoder.reverse(map.position(between: "q", "t", at: 0.1), radius: 20))
        #expect(inArea.kind == "area" && inArea.name == "Kaupunki" && inArea.country == "Testland", "\(inArea)")
        #expect(try geocoder.reverse(Coordinate(latitude: 10, longitude: 10)) == nil)
    }

    @Test func localSearchByCategoryInEnglishAndChinese() throws {
        let (map, geocoder) = try Self.town()
        for word in ["school", "schools", "学校", "學校"] {
            let found = try geocoder.search(word, near: map.position("a"), radius: 500)
            #expect(found.first?.name == "Kallion koulu", "\(word)")
            #expect((found.first?.distance ?? 0) > 0 && found.first?.bearing != nil)
        }
        #expect(try geocoder.search("餐厅", near: map.position("a"), radius: 1000).first?.name == "Ravintola Äitee")
        #expect(try geocoder.search("restaurant", near: map.position("a"), radius: 10).isEmpty, "outside the radius")
        #expect(try geocoder.search("Kallion", near: map.position("a"), radius: 500).first?.name == "Kallion koulu")
    }

    @Test func routesBetweenNames() throws {
        let (map, geocoder) = try Self.town()
        let from = try #require(try geocoder.forward("Kallion koulu").first)
        let to = try #require(try geocoder.forward("Mannerheimintie").first)
        let graph = try RoadGraph(contentsOf: try graphFile(map.graphDirectory, .walking))
        let route = try checkedRoute(graph, [from.coordinate, to.coordinate])
        #expect(route.distance > 0)
    }
}
