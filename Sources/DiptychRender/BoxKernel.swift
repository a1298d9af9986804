// SPDX-License-Identifier: MIT
// The code paths of the area-average kernel (`CRenderKernels`): which this CPU runs, which the
// frames use, and the `DIPTYCH_KERNEL` switch that forces one.

import CRenderKernels
import Synchronization

/// A code path of the area-average kernel. Every path computes the same integer formula, so
/// their pictures are bit-identical; they differ in speed and in the CPUs that run them.
public enum BoxKernel: String, CaseIterable, Sendable {
    case scalar, sse2, ssse3, avx2, avx512, neon

    var isa: Int32 {
        switch self {
        case .scalar: Int32(DP_BOX_ISA_SCALAR)
        case .sse2: Int32(DP_BOX_ISA_SSE2)
        case .ssse3: Int32(DP_BOX_ISA_SSSE3)
        case .avx2: Int32(DP_BOX_ISA_AVX2)
        case .avx512: Int32(DP_BOX_ISA_AVX512)
        case .neon: Int32(DP_BOX_ISA_NEON)
        }
    }

    /// Whether this build and this CPU run the path.
    public var isAvailable: Bool { dp_box_isa_available(isa) == 1 }

    /// The paths this CPU runs, slowest first.
    public static var available: [BoxKernel] { allCases.filter(\.isAvailable) }

    /// The fastest path this CPU runs.
    public static var best: BoxKernel {
        let isa = dp_box_downscale_best_isa()
        return allCases.first { $0.isa == isa } ?? .scalar
    }

    /// The environment variable that forces a path.
    public static let environmentVariable = "DIPTYCH_KERNEL"

    /// The path `value` (DIPTYCH_KERNEL's) names; an error naming the paths this CPU runs when
    /// it names none or one this CPU cannot run.
    public static func named(_ value: String) throws(KernelError) -> BoxKernel {
        let valid = available.map(\.rawValue).joined(separator: ", ")
        guard let kernel = BoxKernel(rawValue: value.lowercased()) else {
            throw KernelError(description: "\(environmentVariable)=\(value) names no kernel; this CPU runs: \(valid)")
        }
        guard kernel.isAvailable else {
            throw KernelError(description: "\(environmentVariable)=\(value): this CPU (or build) cannot run it; it runs: \(valid)")
        }
        return kernel
    }

    private static let forced = Mutex<BoxKernel?>(nil)

    /// The path frames are drawn with: the one forced (`force`, from DIPTYCH_KERNEL at start),
    /// else the best.
    public static var current: BoxKernel { forced.withLock { $0 } ?? best }

    /// Makes every frame from now on use `kernel` (nil: the best again).
    public static func force(_ kernel: BoxKernel?) {
        forced.withLock { $0 = kernel }
    }
}

/// A DIPTYCH_KERNEL value the program cannot use.
public struct KernelError: Error, CustomStringConvertible {
    public var description: String
}
