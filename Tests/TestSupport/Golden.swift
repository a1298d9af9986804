// SPDX-License-Identifier: MIT
// Golden-image checks in the style of Weston's test suite: reference PNGs in the repository,
// per-channel tolerance, a diff PNG written on failure, a missing reference written and failed.

import DiptychLinux
import DiptychImage
import Glibc

public enum Golden {
    /// The folder failures are written to: `$DIPTYCH_GOLDEN_OUT`, else a new folder of its
    /// own, named in each failure message and kept (it is there to be looked at).
    public static func failureDirectory() -> String {
        if let dir = Files.environment("DIPTYCH_GOLDEN_OUT") {
            try? Files.makeDirectories(dir)
            return dir
        }
        return (try? Files.makeTemporaryDirectory("diptych-golden")) ?? "."
    }

    /// Compares `image` with `referenceDirectory/name.png`.
    ///
    /// - Returns: nil when every pixel is within `tolerance` on each of R, G and B; otherwise a
    ///   message naming the files written: `name-actual.png` and `name-diff.png` (differing
    ///   pixels red) in `failureDirectory`. A missing reference (or any with
    ///   `DIPTYCH_RECORD=1`) is written from `image`, and the check fails so that a new
    ///   reference is never accepted silently.
    public static func check(_ image: PixelImage, name: String, referenceDirectory: String, tolerance: Int = 1) -> String? {
        let reference = "\(referenceDirectory)/\(name).png"
        if !Files.exists(reference) || Files.environment("DIPTYCH_RECORD") == "1" {
            do { try image.writePNG(to: reference, compact: true) } catch { return "cannot record \(reference): \(error)" }
            return "recorded a new reference \(reference); check it and run again"
        }
        let expected: PixelImage
        do { expected = try PixelImage.readPNG(from: reference) } catch { return "cannot read the reference: \(error)" }
        let result = image.compare(to: expected, tolerance: tolerance)
        if result.matches { return nil }
        let failureDirectory = failureDirectory()
        let actualPath = "\(failureDirectory)/\(name)-actual.png"
        try? image.writePNG(to: actualPath)
        guard result.sameSize else {
            return "\(name): size \(image.width)x\(image.height) differs from the reference \(expected.width)x\(expected.height); actual image: \(actualPath)"
        }
        let diffPath = "\(failureDirectory)/\(name)-diff.png"
        try? result.diff?.writePNG(to: diffPath)
        let at = result.firstDifference.map { "first at (\($0.x), \($0.y))" } ?? ""
        return "\(name): \(result.differingPixels) pixels differ by more than \(tolerance) (max \(result.maxChannelDifference)), \(at); actual \(actualPath), diff \(diffPath)"
    }

    /// A reference name for a device, orientation and arrangement: `ipad-pro-landscape-split-1-2`.
    public static func name(_ device: String, _ orientation: String, _ arrangement: String) -> String {
        "\(device)-\(orientation)-\(String(arrangement.map { $0 == "/" ? "-" : $0 }))"
    }

    /// The directory of the source file that calls this, for `Reference/` beside the tests.
    public static func directory(of filePath: String) -> String {
        String(filePath[..<(filePath.lastIndex(of: "/") ?? filePath.endIndex)])
    }
}
