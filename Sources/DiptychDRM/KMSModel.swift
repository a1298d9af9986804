// SPDX-License-Identifier: MIT
// KMS objects as Swift values, and the pure choices made from them: which mode, which CRTC.
// This file imports no C module, so its logic is unit tested without a card.

import DiptychCore

/// A display mode, copied out of the kernel's list; `index` finds it again there.
public struct DisplayMode: Equatable, Sendable, CustomStringConvertible {
    public var index: Int
    public var width: Int
    public var height: Int
    /// Refresh rate in millihertz, from the mode's timings.
    public var refreshMillihertz: Int
    public var preferred: Bool

    public init(index: Int, width: Int, height: Int, refreshMillihertz: Int, preferred: Bool) {
        self.index = index
        self.width = width
        self.height = height
        self.refreshMillihertz = refreshMillihertz
        self.preferred = preferred
    }

    /// Refresh in mHz from pixel clock (kHz) and totals, rounded as wlroots does.
    public static func refresh(clockKilohertz: Int, htotal: Int, vtotal: Int) -> Int {
        guard htotal > 0, vtotal > 0 else { return 0 }
        return (clockKilohertz * 1_000_000 / htotal + vtotal / 2) / vtotal
    }

    public var description: String { "\(width)x\(height)@\(Double(refreshMillihertz) / 1000)" }
}

public struct ConnectorInfo: Equatable, Sendable {
    public var id: UInt32
    public var name: String
    public var connected: Bool
    public var modes: [DisplayMode]
    public var encoders: [UInt32]
    public var currentEncoder: UInt32?
    /// The panel's physical size as the connector reports it (nil: unknown, as many TVs say).
    public var millimetres: Size?
    public init(id: UInt32, name: String, connected: Bool, modes: [DisplayMode], encoders: [UInt32], currentEncoder: UInt32?) {
        self.id = id
        self.name = name
        self.connected = connected
        self.modes = modes
        self.encoders = encoders
        self.currentEncoder = currentEncoder
    }
}

public struct EncoderInfo: Equatable, Sendable {
    public var id: UInt32
    /// Bit i set: the encoder can drive the i-th CRTC of the resources.
    public var possibleCRTCs: UInt32
    public var currentCRTC: UInt32?
    public init(id: UInt32, possibleCRTCs: UInt32, currentCRTC: UInt32?) {
        self.id = id
        self.possibleCRTCs = possibleCRTCs
        self.currentCRTC = currentCRTC
    }
}

/// A CRTC's state, saved to be restored on exit.
public struct CRTCState: Equatable, Sendable {
    public var id: UInt32
    public var framebuffer: UInt32
    public var x: Int
    public var y: Int
    /// Whether a mode was set (the saved mode stays with the device).
    public var modeValid: Bool
    public init(id: UInt32, framebuffer: UInt32, x: Int, y: Int, modeValid: Bool) {
        self.id = id
        self.framebuffer = framebuffer
        self.x = x
        self.y = y
        self.modeValid = modeValid
    }
}

public struct KMSResources: Equatable, Sendable {
    public var crtcs: [UInt32]
    public var connectors: [UInt32]
    public var encoders: [UInt32]
    public init(crtcs: [UInt32], connectors: [UInt32], encoders: [UInt32]) {
        self.crtcs = crtcs
        self.connectors = connectors
        self.encoders = encoders
    }
}

/// A requested mode: `WxH` or `WxH@Hz`.
public struct ModeRequest: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var hertz: Double?

    public static func parse(_ text: String) -> ModeRequest? {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let size = Size(parsing: parts[0]) else { return nil }
        var hz: Double?
        if parts.count == 2 {
            guard let h = Double(parts[1]), h > 0, h < 1000 else { return nil }
            hz = h
        }
        return ModeRequest(width: size.width, height: size.height, hertz: hz)
    }
}

/// Pure KMS decisions.
public enum KMSPlanner {
    /// The requested mode (nearest refresh when several match), else the preferred one, else
    /// the largest; nil when a request matches nothing.
    public static func chooseMode(_ modes: [DisplayMode], requested: ModeRequest?) -> DisplayMode? {
        if let r = requested {
            let sized = modes.filter { $0.width == r.width && $0.height == r.height }
            guard let hz = r.hertz else { return sized.first(where: \.preferred) ?? sized.max { $0.refreshMillihertz < $1.refreshMillihertz } }
            return sized.min { abs(Double($0.refreshMillihertz) / 1000 - hz) < abs(Double($1.refreshMillihertz) / 1000 - hz) }
                .flatMap { abs(Double($0.refreshMillihertz) / 1000 - hz) < 1 ? $0 : nil }
        }
        return modes.first(where: \.preferred) ?? modes.max { $0.width * $0.height < $1.width * $1.height }
    }

    /// An encoder and CRTC for the connector: the ones it already uses if possible (no flicker
    /// from a needless switch), else the first free pair its encoders allow.
    public static func chooseCRTC(
        connector: ConnectorInfo, encoders: [EncoderInfo], crtcs: [UInt32], taken: Set<UInt32> = []
    ) -> (encoder: UInt32, crtc: UInt32)? {
        if let current = connector.currentEncoder, let e = encoders.first(where: { $0.id == current }),
            let c = e.currentCRTC, !taken.contains(c)
        {
            return (e.id, c)
        }
        for id in connector.encoders {
            guard let e = encoders.first(where: { $0.id == id }) else { continue }
            for (i, crtc) in crtcs.enumerated() where e.possibleCRTCs & (1 << UInt32(i)) != 0 && !taken.contains(crtc) {
                return (e.id, crtc)
            }
        }
        return nil
    }
}
