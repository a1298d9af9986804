#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The on-screen keyboard's languages, generated from the data sets that already say them:

- each layout's letter keys from Debian's xkb data, as libxkbcommon compiles the layout
  (rules evdev, model pc105): the first level of the three letter rows, the keys that are
  letters, in order;
- each language's accents from Unicode CLDR (unicode-cldr-core): for a letter key, the letters
  of the language's exemplar characters and then its auxiliary ones that are that letter with
  marks (NFD), at most 8; its currency symbol and quotation marks;
- stated here, and nowhere else: where iPad's keys differ from xkb's (IPAD_DIFFERS), the xkb
  layout -> CLDR locale map (LOCALES; CLDR's own inheritance is followed: de_CH -> de, nb -> no),
  where letters that do not decompose go (OWN_PLACES: ß on s, æ on a, ø and œ on o, ...), and
  the symbols' alternatives (SYMBOLS: € £ ¥ on $, ¿ on ?, ¡ on !, « » „ on ");
- each language's name in itself (CLDR's display names), for the globe key's list.

    python3 Assets/keyboard/gen.py           # writes the table (make keyboard-languages)
    python3 Assets/keyboard/gen.py --check   # exits 1 if the table differs (make test)

Needs libxkbcommon (libxkbcommon0), xkb-data and unicode-cldr-core; standard library otherwise.
"""

import ctypes
import os
import re
import sys
import unicodedata
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUTPUT = "Sources/DiptychCore/Keyboard/KeyboardLanguages+Generated.swift"
CLDR = os.environ.get("CLDR_COMMON", "/usr/share/unicode/cldr/common")

# The layouts, in the order the README lists them.
LAYOUTS = ["us", "gb", "de", "fr", "es", "it", "pt", "nl", "se", "no", "dk", "fi", "ch"]
# xkb layout -> CLDR locale.
LOCALES = {"us": "en", "gb": "en_GB", "de": "de", "fr": "fr", "es": "es", "it": "it", "pt": "pt_PT",
           "nl": "nl", "se": "sv", "no": "nb", "dk": "da", "fi": "fi", "ch": "de_CH"}
# Letters xkb puts on the letter rows that iPad's keyboard for the language leaves to a long
# press: French (ù), Italian (è ò à), Portuguese (ç).
IPAD_DIFFERS = {"fr": "ù", "it": "èòà", "pt": "ç"}
# Letters that are no letter with marks (NFD keeps them whole), and the key whose popup has them
# where the language uses them.
OWN_PLACES = {"ß": "s", "æ": "a", "ø": "o", "œ": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "t", "ı": "i", "ŀ": "l"}
# Symbols' alternatives on every keyboard (iPad: the dollar key holds the other currencies; ? and !
# the inverted marks Spanish opens with; " the quotation marks « » „ of the languages here).
SYMBOLS = {"$": "€£¥₩₽¢", "-": "–—•", "'": "‘’`", "\"": "“”„«»", "?": "¿", "!": "¡", "%": "‰", "&": "§", ".": "…"}
MAX_ALTERNATIVES = 8

# evdev keycodes of the three letter rows (Q..], A..', Z../).
ROWS = [range(16, 28), range(30, 41), range(44, 54)]


class RuleNames(ctypes.Structure):
    _fields_ = [("rules", ctypes.c_char_p), ("model", ctypes.c_char_p), ("layout", ctypes.c_char_p),
                ("variant", ctypes.c_char_p), ("options", ctypes.c_char_p)]


def xkb_rows():
    """Each layout's letter rows from libxkbcommon: {layout: [row, row, row]}."""
    x = ctypes.CDLL("libxkbcommon.so.0")
    x.xkb_context_new.restype = ctypes.c_void_p
    x.xkb_keymap_new_from_names.restype = ctypes.c_void_p
    x.xkb_keymap_new_from_names.argtypes = [ctypes.c_void_p, ctypes.POINTER(RuleNames), ctypes.c_int]
    x.xkb_keymap_key_get_syms_by_level.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32,
                                                   ctypes.POINTER(ctypes.POINTER(ctypes.c_uint32))]
    x.xkb_keysym_to_utf32.restype = ctypes.c_uint32
    x.xkb_keymap_unref.argtypes = [ctypes.c_void_p]
    context = x.xkb_context_new(0)
    out = {}
    for layout in LAYOUTS:
        names = RuleNames(b"evdev", b"pc105", layout.encode(), b"", b"")
        keymap = x.xkb_keymap_new_from_names(context, ctypes.byref(names), 0)
        if not keymap:
            sys.exit(f"gen.py: libxkbcommon cannot compile the layout '{layout}' (is xkb-data installed?)")
        rows = []
        for keycodes in ROWS:
            row = ""
            for code in keycodes:
                syms = ctypes.POINTER(ctypes.c_uint32)()
                if x.xkb_keymap_key_get_syms_by_level(keymap, code + 8, 0, 0, ctypes.byref(syms)) < 1:
                    continue
                u = x.xkb_keysym_to_utf32(syms[0])
                c = chr(u) if u else ""
                if c and unicodedata.category(c) in ("Ll", "Lu") and c not in IPAD_DIFFERS.get(layout, ""):
                    row += c
            rows.append(row)
        x.xkb_keymap_unref(keymap)
        out[layout] = rows
    return out


def unicode_set(text):
    """The single characters of a CLDR UnicodeSet such as [a à b-d {ch} \\u00E9]."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    text = re.sub(r"\{[^}]*\}", " ", text)  # strings of several characters: not a key's
    text = re.sub(r"\\u([0-9A-Fa-f]{4})", lambda m: chr(int(m.group(1), 16)), text)
    text = text.replace("\\", "")
    chars, items = [], text.split()
    for item in items:
        if len(item) == 3 and item[1] == "-":
            chars += [chr(c) for c in range(ord(item[0]), ord(item[2]) + 1)]
        else:
            chars += list(item)
    return chars


def locale_chain(locale):
    """The locale and those it inherits from, as CLDR's files say (parentLocales, then the
    name's own prefix): nb -> no -> root, de_CH -> de."""
    parents = {}
    supplemental = ET.parse(os.path.join(CLDR, "supplemental", "supplementalData.xml")).getroot()
    for p in supplemental.iter("parentLocale"):
        for child in p.get("locales", "").split():
            parents[child] = p.get("parent")
    chain = [locale]
    while True:
        current = chain[-1]
        parent = parents.get(current) or (current.rsplit("_", 1)[0] if "_" in current else None)
        if not parent or parent == "root" or parent in chain:
            break
        chain.append(parent)
    return chain + ["root"]


def cldr(locale):
    """A locale's exemplar and auxiliary characters, currency symbol and quotation marks, each
    from the first file in its chain that says it."""
    found = {}
    for name in locale_chain(locale):
        path = os.path.join(CLDR, "main", name + ".xml")
        if not os.path.exists(path):
            continue
        root = ET.parse(path).getroot()
        for e in root.iter("exemplarCharacters"):
            kind = e.get("type", "main")
            if kind in ("main", "auxiliary") and kind not in found and not e.get("alt"):
                found[kind] = unicode_set(e.text or "")
        d = root.find("delimiters")
        if d is not None and "quotes" not in found:
            marks = [d.findtext(k) for k in ("quotationStart", "quotationEnd", "alternateQuotationStart", "alternateQuotationEnd")]
            if all(marks):
                found["quotes"] = "".join(dict.fromkeys("".join(marks)))
    if "main" not in found:
        sys.exit(f"gen.py: CLDR has no exemplar characters for {locale} (is unicode-cldr-core installed?)")
    return found


def currency(locale):
    """The symbol of the currency of the locale's territory (CLDR's currencyData, then the
    locale's narrow or plain symbol for it)."""
    chain = locale_chain(locale)
    territory = {"en": "US", "de": "DE", "fr": "FR", "es": "ES", "it": "IT", "nl": "NL", "sv": "SE", "nb": "NO", "no": "NO",
                 "da": "DK", "fi": "FI"}.get(locale, locale.split("_")[-1] if "_" in locale else None)
    supplemental = ET.parse(os.path.join(CLDR, "supplemental", "supplementalData.xml")).getroot()
    code = None
    for region in supplemental.iter("region"):
        if region.get("iso3166") == territory:
            for c in region.iter("currency"):
                if not c.get("to") and c.get("tender") != "false":
                    code = c.get("iso4217")
                    break
            break
    if not code:
        sys.exit(f"gen.py: CLDR names no currency for {locale}")
    for name in chain:
        path = os.path.join(CLDR, "main", name + ".xml")
        if not os.path.exists(path):
            continue
        for c in ET.parse(path).getroot().iter("currency"):
            if c.get("type") == code:
                narrow = [s.text for s in c.findall("symbol") if s.get("alt") == "narrow" and s.text]
                plain = [s.text for s in c.findall("symbol") if not s.get("alt") and s.text]
                symbol = (narrow or plain or [None])[0]
                if symbol:
                    return symbol
    return code


def autonym(locale):
    """The language's name in itself (CLDR's display name of the locale in the locale's own
    language, else of its language), capitalised as a menu item: Deutsch, Français, British English."""
    language = locale.split("_")[0]
    for wanted in (locale, language):
        for name in locale_chain(locale):
            path = os.path.join(CLDR, "main", name + ".xml")
            if not os.path.exists(path):
                continue
            for e in ET.parse(path).getroot().iter("language"):
                if e.get("type") == wanted and not e.get("alt") and e.text:
                    return e.text[0].upper() + e.text[1:]
    sys.exit(f"gen.py: CLDR has no name for {locale} in itself")


def base(c):
    """The letter a character is, without its marks (ß, æ, ø … by OWN_PLACES)."""
    if c in OWN_PLACES:
        return OWN_PLACES[c]
    d = unicodedata.normalize("NFD", c)
    return d[0] if d and d[0] != c else None


def accents(letters, data):
    """For each letter key: its alternatives in the language (exemplar, then auxiliary)."""
    out = {}
    for key in sorted(set("".join(letters)) | set("abcdefghijklmnopqrstuvwxyz")):
        alts = []
        for c in data.get("main", []) + data.get("auxiliary", []):
            if len(c) == 1 and c != key and c.islower() and base(c) == key and c not in alts and c not in "".join(letters):
                alts.append(c)
        if alts:
            out[key] = "".join(alts[:MAX_ALTERNATIVES])
    return out


def swift_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def generate():
    rows = xkb_rows()
    lines = [
        "// SPDX-License-Identifier: MIT",
        "// Generated by Assets/keyboard/gen.py from Debian's xkb data (through libxkbcommon) and Unicode",
        "// CLDR: do not edit (make keyboard-languages writes it, make test checks it).",
        "",
        "extension KeyboardLanguage {",
        "    /// The symbols' alternatives of every language that states none of its own.",
        f"    static let commonSymbols: [String: String] = [{', '.join(f'{swift_string(k)}: {swift_string(v)}' for k, v in sorted(SYMBOLS.items()))}]",
        "",
        "    /// Every language the on-screen keyboard has, by xkb layout name.",
        "    static let generated: [KeyboardLanguage] = [",
    ]
    for layout in LAYOUTS:
        locale = LOCALES[layout]
        data = cldr(locale)
        alts = accents(rows[layout], data)
        quotes = data.get("quotes", "“”‘’")
        lines.append(f"        KeyboardLanguage(")
        lines.append(f"            name: {swift_string(layout)}, locale: {swift_string(locale)}, autonym: {swift_string(autonym(locale))},")
        lines.append(f"            letters: [{', '.join(swift_string(r) for r in rows[layout])}],")
        lines.append(f"            accents: [{', '.join(f'{swift_string(k)}: {swift_string(v)}' for k, v in sorted(alts.items())) or ':'}],")
        lines.append(f"            currency: {swift_string(currency(locale))}, quotes: {swift_string(quotes)}),")
    lines += ["    ]", "}", ""]
    return "\n".join(lines)


def main():
    text = generate()
    path = os.path.join(ROOT, OUTPUT)
    if "--check" in sys.argv:
        current = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        if current != text:
            print(f"gen.py: {OUTPUT} differs from what Assets/keyboard/gen.py generates: run make keyboard-languages", file=sys.stderr)
            sys.exit(1)
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
