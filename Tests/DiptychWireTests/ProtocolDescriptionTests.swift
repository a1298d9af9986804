// SPDX-License-Identifier: MIT
// The one description of the protocol, Assets/protocol/diptych-protocol.json, against the Swift
// codec: every message the codec knows is in it with its opcode and name, every message in it is
// one the codec knows, and each encoded message is read field by field from the description,
// ending exactly at the end of its body (a field added, dropped, resized or moved shows). The C
// library and the reference documentation are checked against it in ProtocolConformanceTests.

import DiptychCore
import DiptychWire
import DiptychTestSupport
import Testing

struct ProtocolDescriptionTests {
    @Test func theSwiftCodecIsTheDescribedProtocol() throws {
        let d = try ProtocolDescription.load()
        #expect(d.version == Int(Wire.version))
        #expect(d.oldestServedVersion == Int(Wire.oldestServedVersion))
        #expect(d.limits["messageBytes"] == Wire.maxMessageSize && d.limits["stringBytes"] == Wire.maxStringBytes && d.limits["damageRects"] == Wire.maxDamageRects)
        #expect(d.fourcc["XRGB8888"] == Int(FourCC.xrgb8888.rawValue) && d.fourcc["ARGB8888"] == Int(FourCC.argb8888.rawValue))
        #expect(d.errors.map(\.code) == ProtocolError.Code.allCases.map { Int($0.rawValue) })
        #expect(d.errors.map(\.name) == ProtocolError.Code.allCases.map(\.name))
        for m in CodecTests.requests {
            let bytes = m.encoded()
            let described = try #require(d.requests.first { $0.opcode == Int(m.opcode) }, "request \(m.name) (\(m.opcode)) is not described")
            #expect(described.name == m.name)
            #expect(described.since == Int(m.since), "request \(m.name) is described since \(described.since), Swift says \(m.since)")
            #expect(d.read(bytes[8...], as: described), "\(m) does not read as described: \(described.fields.map(\.type))")
        }
        for e in CodecTests.events {
            let bytes = e.encoded()
            let described = try #require(d.events.first { $0.opcode == Int(e.opcode) }, "event \(e.name) (\(e.opcode)) is not described")
            if e.opcode != 102 && e.opcode != 107 { #expect(described.name == e.name) }
            #expect(described.since == Int(e.since), "event \(e.name) is described since \(described.since), Swift says \(e.since)")
            #expect(d.read(bytes[8...], as: described), "\(e) does not read as described: \(described.fields.map(\.type))")
        }
        // And nothing described that the codec does not know.
        #expect(Set(d.requests.map(\.opcode)) == Set(CodecTests.requests.map { Int($0.opcode) }))
        #expect(Set(d.events.map(\.opcode)) == Set(CodecTests.events.map { Int($0.opcode) }))
    }
}
