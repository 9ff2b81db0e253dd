import Foundation

/// Turns names and queries into search tokens: case and accents folded ("Lönnrotinkatu" → "lonnrotinkatu"),
/// letters that do not decompose mapped by hand (ø, æ, ß, ł), and CJK text split into characters and overlapping
/// pairs, so "北京" finds "北京市" and word order does not matter.
public enum TextNormalizer {
    static let extraFolds: [Character: String] = ["ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i"]

    public static func fold(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
        guard folded.contains(where: { extraFolds[$0] != nil }) else { return folded }
        return folded.map { extraFolds[$0] ?? String($0) }.joined()
    }

    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0xAC00...0xD7AF, 0x20000...0x2FA1F: return true
        default: return false
        }
    }

    /// Tokens of a text: runs of letters and digits; CJK runs as single characters plus adjacent pairs.
    public static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var word = ""
        var cjk: [Character] = []
        func flushWord() { if !word.isEmpty { tokens.append(word); word = "" } }
        func flushCJK() {
            guard !cjk.isEmpty else { return }
            for c in cjk { tokens.append(String(c)) }
            if cjk.count > 1 { for i in 0..<(cjk.count - 1) { tokens.append(String(cjk[i]) + String(cjk[i + 1])) } }
            cjk.removeAll()
        }
        for character in fold(text) {
            if let scalar = character.unicodeScalars.first, isCJK(scalar) {
                flushWord()
                cjk.append(character)
            } else if character.isLetter || character.isNumber {
                flushCJK()
                word.append(character)
            } else {
                flushWord()
                flushCJK()
            }
        }
        flushWord()
        flushCJK()
        return tokens
    }

    /// Whether a token is CJK (searched as an exact character or pair, not as a prefix).
    static func isCJKToken(_ token: String) -> Bool { token.unicodeScalars.first.map(isCJK) ?? false }

    /// Levenshtein distance, bounded: returns `limit + 1` as soon as it must exceed `limit`.
    public static func editDistance(_ a: [Character], _ b: [Character], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        var previous = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            var best = current[0]
            for j in 1...max(1, b.count) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                best = min(best, current[j])
            }
            if best > limit { return limit + 1 }
            previous = current
        }
        return previous[b.count]
    }
}
