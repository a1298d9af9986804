// SPDX-License-Identifier: MIT
// The on-screen keyboard's languages: each xkb layout's letter keys in the iPad's geometry, and
// its language's accents, currency and quotation marks. The table is generated
// (`KeyboardLanguages+Generated.swift`, by Assets/keyboard/gen.py from Debian's xkb data and
// Unicode CLDR); this file says what it holds and how it is looked up.

/// One language of the on-screen keyboard.
public struct KeyboardLanguage: Equatable, Sendable {
    /// The xkb layout name (`de`), as `keyboard-layouts` lists it.
    public let name: String
    /// The CLDR locale its accents and symbols come from (`de_CH`).
    public let locale: String
    /// Its name in itself (`Deutsch`), as the globe key's list shows it.
    public let autonym: String
    /// The three rows of letter keys, lower case, left to right (`qwertzuiopü`, …).
    public let letters: [String]
    /// For a letter key, the alternatives its long press offers, in order (at most 8).
    public let accents: [String: String]
    /// The currency symbol of the numbers plane (`€`, `£`, `kr`).
    public let currency: String
    /// The language's quotation marks (`„“‚‘`), offered on the `"` key.
    public let quotes: String
    /// For some symbol keys, the alternatives their long press offers (`€ £ ¥` on `$`; the
    /// same in every language).
    public let symbols: [String: String]

    init(name: String, locale: String, autonym: String, letters: [String], accents: [String: String], currency: String, quotes: String) {
        (self.name, self.locale, self.autonym, self.letters, self.accents) = (name, locale, autonym, letters, accents)
        (self.currency, self.quotes, self.symbols) = (currency, quotes, Self.commonSymbols)
    }

    /// Every language the keyboard has, in the README's order.
    public static var all: [KeyboardLanguage] { generated }

    /// US English, the default.
    public static let us = generated[0]

    /// The language of xkb layout `name`, if the keyboard has it.
    public static func named(_ name: String) -> KeyboardLanguage? { generated.first { $0.name == name } }

    /// The languages of a `keyboard-layouts` value (`us,de,fr`: xkb layout names, at least one,
    /// none twice), or why not.
    public static func list(parsing text: String) -> Result<[KeyboardLanguage], KeyboardLanguageError> {
        var out: [KeyboardLanguage] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false).map({ String($0).filter { $0 != " " } }) {
            guard let l = named(name) else {
                return .failure(KeyboardLanguageError(message: "no keyboard for '\(name)' (there are: \(generated.map(\.name).joined(separator: ", ")))"))
            }
            guard !out.contains(l) else { return .failure(KeyboardLanguageError(message: "'\(name)' is listed twice")) }
            out.append(l)
        }
        return .success(out)
    }

    /// The alternatives a long press on a key typing `text` offers (none: no popup), at most
    /// `KeyboardPopup.maxItems`.
    public func alternatives(of text: String) -> [String] {
        let lower = text.lowercased()
        let list: [String]
        if let a = accents[lower] {
            // (A capital's are capitals; ß stays ß, having no one-letter capital here.)
            list = a.map { c in text == lower ? String(c) : String(c).uppercased().count == 1 ? String(c).uppercased() : String(c) }
        } else if text == "\"" {
            list = Array(quotes).map(String.init)
        } else {
            list = (symbols[text] ?? "").map(String.init)
        }
        return Array(list.prefix(KeyboardPopup.maxItems))
    }

    /// Whether `c` (either case) is a letter of this keyboard: on a key, or in a key's popup.
    public func hasLetter(_ c: Character) -> Bool {
        let lower = String(c).lowercased()
        return letters.contains { $0.contains(lower) } || accents.keys.contains { alternatives(of: $0).contains(lower) }
    }
}

/// Why a `keyboard-layouts` value was refused.
public struct KeyboardLanguageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
