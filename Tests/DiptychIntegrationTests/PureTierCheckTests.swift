// SPDX-License-Identifier: MIT
// `make check-pure` must catch every way of importing C, Glibc, Musl or Foundation into the
// pure tier, and pass clean code.

import DiptychLinux
import DiptychTestSupport
import Testing

struct PureTierCheckTests {
    static let script = "\(repositoryRoot)/Tests/Tools/check-pure.sh"

    func check(_ source: String) throws -> Int32 {
        let dir = Harness.temporaryDirectory("pure")
        try Files.writeAtomically("\(dir)/File.swift", bytes: Array(source.utf8))
        return try Harness.run(["bash", Self.script, dir]).status
    }

    static let forbidden = [
        "import Glibc", "import Foundation", "import FoundationEssentials", "import struct Foundation.Date",
        "@preconcurrency import Glibc", "import Musl", "@_implementationOnly import CPixman", "public import CLinuxShims",
        "  @preconcurrency internal import Foundation", "import func Glibc.write", "@_exported import Darwin",
        "import Glibc;", "import DiptychCore; import Glibc", "@preconcurrency @_implementationOnly import CUdev",
    ]

    @Test(arguments: forbidden)
    func forbiddenImportsAreCaught(line: String) throws {
        #expect(try check("// x\n\(line)\n\nlet x = 1\n") == 1)
    }

    @Test func theRealPureTierAndCleanImportsPass() throws {
        #expect(try check("import DiptychCore\nimport Synchronization\n// import Glibc in a comment\nlet Foundation = 1\nimport GlibcLike\n") == 0)
        #expect(try Harness.run(["bash", Self.script]).status == 0)
    }
}
