// SPDX-License-Identifier: MIT
// The keyboard's languages: each letter plane is its xkb layout's letters in the iPad's geometry
// (the table itself is checked against xkb and CLDR by `make test`'s gen.py --check), every row
// fills the width, and the accents and currencies are the language's.

import DiptychCore
import Testing

struct KeyboardLanguageTests {
    let size = Size(width: 1024, height: 352)

    /// The letter keys of each plane, row by row, are the language's letters in order.
    @Test(arguments: KeyboardLanguage.all.map(\.name))
    func theLetterPlaneIsTheLayoutsLetters(_ name: String) throws {
        let language = try #require(KeyboardLanguage.named(name))
        for orientation in [Orientation.landscape, .portrait] {
            let s = orientation == .landscape ? size : Size(width: 768, height: 264)
            let keys = KeyboardLayout.letters.keys(variant: .default, returnKey: .default, capitals: false, size: s, orientation: orientation, language: language)
            let rows = Dictionary(grouping: keys) { $0.frame.y }.sorted { $0.key < $1.key }.map { $0.value.sorted { $0.frame.x < $1.frame.x } }
            #expect(rows.count == 4)
            for (r, letters) in language.letters.enumerated() {
                let typed = rows[r].compactMap { k -> String? in
                    if case .text(let t) = k.action, t.first?.isLetter == true { return t }
                    return nil
                }
                #expect(typed.joined() == letters, "\(name) row \(r)")
            }
            // Every row fills the width between the margins; no key overlaps the next.
            for row in rows {
                #expect(abs(row.last!.frame.maxX - (s.width - (orientation == .landscape ? 12 : 9))) <= 2, "\(name) \(orientation)")
                for (a, b) in zip(row, row.dropFirst()) { #expect(a.frame.maxX < b.frame.minX, "\(name)") }
            }
        }
    }

    @Test func theLanguagesOfTheKiosksAreThere() throws {
        #expect(KeyboardLanguage.all.map(\.name) == ["us", "gb", "de", "fr", "es", "it", "pt", "nl", "se", "no", "dk", "fi", "ch"])
        let de = try #require(KeyboardLanguage.named("de")), fr = try #require(KeyboardLanguage.named("fr")), es = try #require(KeyboardLanguage.named("es"))
        #expect(de.letters == ["qwertzuiopü", "asdfghjklöä", "yxcvbnm"])
        #expect(fr.letters == ["azertyuiop", "qsdfghjklm", "wxcvbn"])
        #expect(de.alternatives(of: "s").first == "ß" && fr.alternatives(of: "e").prefix(4) == ["é", "è", "ê", "ë"])
        #expect(fr.alternatives(of: "E").first == "É" && fr.alternatives(of: "o").contains("œ"))
        #expect(es.letters[1].contains("ñ") && es.alternatives(of: "?").first == "¿")
        #expect(de.currency == "€" && KeyboardLanguage.named("gb")?.currency == "£" && KeyboardLanguage.named("se")?.currency == "kr")
        #expect(KeyboardLanguage.all.allSatisfy { $0.accents.values.allSatisfy { $0.count <= 8 } })
    }

    /// The numbers plane has the language's currency where US English has the dollar, and the
    /// symbols plane the dollar where the currency was.
    @Test func theCurrencyIsTheLanguages() throws {
        let de = try #require(KeyboardLanguage.named("de"))
        let numbers = KeyboardLayout.numbers.keys(variant: .default, returnKey: .default, capitals: false, size: size, orientation: .landscape, language: de)
        let symbols = KeyboardLayout.symbols.keys(variant: .default, returnKey: .default, capitals: false, size: size, orientation: .landscape, language: de)
        #expect(numbers.contains { $0.action == .text("€") } && !numbers.contains { $0.action == .text("$") })
        #expect(symbols.contains { $0.action == .text("$") } && !symbols.contains { $0.action == .text("€") })
    }
}
