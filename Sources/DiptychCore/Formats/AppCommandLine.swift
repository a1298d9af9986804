// SPDX-License-Identifier: MIT
// An app's command line as users write it: shell-style words (quotes and backslashes, no
// expansion), or a list of arguments given as they are.

/// The command line that runs an app.
public struct AppCommandLine: Equatable, Sendable, CustomStringConvertible {
    /// The program and its arguments.
    public var arguments: [String]
    /// As the user wrote it (the app's label in logs and messages).
    public var description: String

    /// A list of arguments taken as they are (a scenario's JSON array).
    public init(arguments: [String]) {
        self.arguments = arguments
        description = arguments.map(Self.quoted).joined(separator: " ")
    }

    /// Splits `text` into words as a POSIX shell does, without expanding anything: single
    /// quotes keep everything up to the next one, double quotes keep everything but `\"`,
    /// `\\`, and a backslash outside quotes keeps the next character.
    public init(parsing text: String) throws(AppCommandLineError) {
        var words: [String] = [], word = "", inWord = false
        var quote: Character?
        var escaped = false
        for c in text {
            if escaped {
                // Inside double quotes a backslash escapes only `"` and `\` (and `$`, `` ` ``).
                if quote == "\"" && !"\"\\$`".contains(c) { word.append("\\") }
                word.append(c)
                escaped = false
                inWord = true
                continue
            }
            switch (quote, c) {
            case ("'", "'"), ("\"", "\""): quote = nil
            case ("'", _): word.append(c)
            case (_, "\\"): escaped = true
            case ("\"", _): word.append(c)
            case (nil, "'"), (nil, "\""):
                quote = c
                inWord = true
            case (nil, " "), (nil, "\t"), (nil, "\n"):
                if inWord { words.append(word) }
                word = ""
                inWord = false
            default:
                word.append(c)
                inWord = true
            }
        }
        if escaped { throw .unfinished(text, "a backslash at the end") }
        if let quote { throw .unfinished(text, "an unclosed \(quote)") }
        if inWord { words.append(word) }
        guard !words.isEmpty else { throw .empty }
        arguments = words
        description = text
    }

    /// The program (the first word).
    public var program: String { arguments[0] }

    /// Whether this is a web app, `web:URL` (a URL, or a file path from the working directory).
    public var isWebApp: Bool { program.hasPrefix("web:") }

    /// The demo app this names (its first word; demo flags may follow), if it is one.
    public var demoApp: DemoApp? { try? DemoApp.named(program) }

    /// The command with a relative program path (one with a `/`, not starting with one)
    /// taken from `folder` instead of the current directory; a bare name is looked up on PATH
    /// as usual, and a demo app is left as it is.
    public func resolved(against folder: String) -> AppCommandLine {
        guard demoApp == nil, !isWebApp, program.contains("/"), !program.hasPrefix("/") else { return self }
        var copy = self
        let trimmed = program.hasPrefix("./") ? String(program.dropFirst(2)) : program
        copy.arguments[0] = (folder.hasSuffix("/") ? folder : folder + "/") + trimmed
        return copy
    }

    /// A word quoted for a shell when it needs it.
    static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=@%+,#".contains($0) }
        return plain ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}

/// Why an app's command line cannot be used.
public enum AppCommandLineError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case unfinished(String, String)

    public var description: String {
        switch self {
        case .empty: "the app's command line is empty"
        case .unfinished(let text, let why): "the app's command line '\(text)' has \(why)"
        }
    }
}
