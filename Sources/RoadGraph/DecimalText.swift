extension Double {
    /// A number as a URL or a command line writes it in decimal: an optional sign, digits with an optional
    /// fraction, an optional exponent. Swift's own `Double(_:)` also reads hexadecimal (`0x10` is 16), `inf` and
    /// `nan`, which no option means.
    public init?<S: StringProtocol>(decimal text: S) {
        var digits = 0, state = 0  // 0: sign or digits, 1: integer digits, 2: fraction, 3: exponent sign, 4: exponent
        var exponentDigits = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if state >= 3 { state = 4; exponentDigits += 1 } else { digits += 1; if state == 0 { state = 1 } }
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                if state == 0 { state = 1 } else if state == 3 { state = 4 } else { return nil }
            case UInt8(ascii: "."):
                guard state <= 1 else { return nil }
                state = 2
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard (1...2).contains(state), digits > 0 else { return nil }
                state = 3
            default:
                return nil
            }
        }
        guard digits > 0, state < 3 || exponentDigits > 0, let value = Double(String(text)) else { return nil }
        self = value
    }
}
