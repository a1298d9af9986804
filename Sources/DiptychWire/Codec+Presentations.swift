// SPDX-License-Identifier: MIT
// The bodies of `presentMenu` and `presentAlert` as the compositor reads them, every bound
// checked: what a client can make it hold for a menu or an alert.

import DiptychCore

extension ByteReader {
    /// A `presentMenu` body: malformed for an unknown item flag, a label over 256 bytes, more
    /// than 1,000 items in the message, a total over 10,000, or items past the total.
    mutating func menuPiece() throws(ProtocolError) -> MenuPiece {
        let id = try u32(), anchor = try rect(), title = try string(), total = try u32(), first = try u32(), count = try u32()
        guard anchor.width >= 0, anchor.height >= 0 else { throw ProtocolError(.malformedMessage, "presentMenu anchor of negative size") }
        guard total <= UInt32(MenuLimits.items) else { throw ProtocolError(.malformedMessage, "presentMenu of \(total) items (at most \(MenuLimits.items))") }
        guard count <= UInt32(MenuLimits.itemsPerMessage) else {
            throw ProtocolError(.malformedMessage, "presentMenu message of \(count) items (at most \(MenuLimits.itemsPerMessage) a message)")
        }
        guard UInt64(first) + UInt64(count) <= UInt64(total) else { throw ProtocolError(.malformedMessage, "presentMenu items \(first)+\(count) past its total \(total)") }
        guard title.utf8.count <= MenuLimits.labelBytes else { throw ProtocolError(.malformedMessage, "presentMenu title of \(title.utf8.count) bytes (at most \(MenuLimits.labelBytes))") }
        var items: [MenuItem] = []
        items.reserveCapacity(Int(count))
        for _ in 0..<count {
            let flags = MenuItemFlags(rawValue: try u8()), label = try string()
            guard MenuItemFlags.known.isSuperset(of: flags) else { throw ProtocolError(.malformedMessage, "unknown menu item flags \(flags.rawValue)") }
            guard label.utf8.count <= MenuLimits.labelBytes else { throw ProtocolError(.malformedMessage, "menu item label of \(label.utf8.count) bytes (at most \(MenuLimits.labelBytes))") }
            items.append(MenuItem(label, flags: flags))
        }
        return MenuPiece(id: id, anchor: anchor, title: title, total: total, first: first, items: items)
    }

    /// A `presentAlert` body: malformed for an unknown field kind or button style, no button
    /// or more than four, a label or the field's text over 256 bytes.
    mutating func alert() throws(ProtocolError) -> AlertRequest {
        let id = try u32(), title = try string(), message = try string()
        let field = try enumCode(try u8(), AlertField.self, "presentAlert field")
        let placeholder = try string(), text = try string(), count = try u32()
        guard (1...UInt32(AlertRequest.buttonLimit)).contains(count) else {
            throw ProtocolError(.malformedMessage, "presentAlert with \(count) buttons (1 to \(AlertRequest.buttonLimit))")
        }
        for s in [placeholder, text] where s.utf8.count > AlertRequest.labelBytes {
            throw ProtocolError(.malformedMessage, "presentAlert field text of \(s.utf8.count) bytes (at most \(AlertRequest.labelBytes))")
        }
        var buttons: [AlertButton] = []
        for _ in 0..<count {
            let style = try enumCode(try u8(), AlertButtonStyle.self, "alert button style"), label = try string()
            guard label.utf8.count <= AlertRequest.labelBytes else { throw ProtocolError(.malformedMessage, "alert button label of \(label.utf8.count) bytes (at most \(AlertRequest.labelBytes))") }
            buttons.append(AlertButton(label, style: style))
        }
        return AlertRequest(id: id, title: title, message: message, field: field, placeholder: placeholder, text: text, buttons: buttons)
    }
}
