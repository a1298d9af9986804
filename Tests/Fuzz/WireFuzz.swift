// SPDX-License-Identifier: MIT
// libFuzzer target: the wire decoder (framing, both directions' bodies, buffer validation).
// Fed by Target.swift's entry point (DIPTYCH_FUZZ_TARGET=wire).

public func fuzzWire(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var assembler = MessageAssembler()
    // Feed in two pieces, as a socket might deliver them.
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    assembler.append(bytes[..<cut])
    assembler.append(bytes[cut...])
    while true {
        let next: (opcode: UInt16, body: ArraySlice<UInt8>)?
        do { next = try assembler.next() } catch { break }
        guard let (opcode, body) = next else { break }
        if let m = try? ClientMessage.decode(opcode: opcode, body: body) {
            // Round trip: what decodes must encode to the same bytes.
            let again = m.encoded()
            precondition(again.count == body.count + 8, "re-encoded length differs")
            if case .createBuffer(_, let layout) = m {
                _ = try? layout.validate(fileSize: Int(body.count) * 4096, sealedAgainstShrinking: true)
            }
        }
        if let e = try? ServerEvent.decode(opcode: opcode, body: body) {
            _ = e.jsonFields
            _ = e.encoded()
        }
    }
    return 0
}
