// SPDX-License-Identifier: MIT
// Menus and alerts an app asks the compositor to show (protocol version 7), checked before
// anything is sent; a long menu goes in pieces that each fit a message.

import DiptychCore
import DiptychWire

extension Connection {
    /// Asks the compositor to show a menu anchored at `anchor` (the pane's points): an iPad
    /// popover, a sheet from the bottom in a compact pane. Answered by `menuChosen` (the
    /// item's index) or `dismissed`. One menu or alert an app at a time (else `refused`, reason
    /// `busy`), only while its pane shows (`hidden`). Sent in messages of at most 1,000 items
    /// and 64 KiB. More than 10,000 items, or a label over 256 bytes, is a misuse.
    public func presentMenu(id: UInt32, anchor: Rect, title: String = "", items: [MenuItem]) throws(ClientError) {
        guard items.count <= MenuLimits.items else { throw .misuse("a menu of \(items.count) items (at most \(MenuLimits.items))") }
        guard anchor.width >= 0, anchor.height >= 0 else { throw .misuse("a menu anchored at a rectangle of negative size") }
        if let long = ([title] + items.map(\.label)).first(where: { $0.utf8.count > MenuLimits.labelBytes }) {
            throw .misuse("a menu label of \(long.utf8.count) bytes (at most \(MenuLimits.labelBytes))")
        }
        let fixed = Wire.headerSize + 36 + title.utf8.count
        var first = 0
        repeat {
            var n = 0, bytes = fixed
            while first + n < items.count, n < MenuLimits.itemsPerMessage, bytes + 5 + items[first + n].label.utf8.count <= Wire.maxMessageSize {
                bytes += 5 + items[first + n].label.utf8.count
                n += 1
            }
            try send(.presentMenu(MenuPiece(
                id: id, anchor: anchor, title: title, total: UInt32(items.count), first: UInt32(first), items: Array(items[first..<(first + n)]))))
            first += n
        } while first < items.count
    }

    /// Asks the compositor to show an alert centred in the app's pane, with 1 to 4 buttons and
    /// perhaps a text field (typed on the on-screen keyboard). Answered by `alertAnswered` (the
    /// button's index and the field's text) or `dismissed`; `busy` and `hidden` as for a menu.
    public func presentAlert(_ alert: AlertRequest) throws(ClientError) {
        guard (1...AlertRequest.buttonLimit).contains(alert.buttons.count) else {
            throw .misuse("an alert of \(alert.buttons.count) buttons (1 to \(AlertRequest.buttonLimit))")
        }
        if let long = ([alert.placeholder, alert.text] + alert.buttons.map(\.label)).first(where: { $0.utf8.count > AlertRequest.labelBytes }) {
            throw .misuse("an alert label or text of \(long.utf8.count) bytes (at most \(AlertRequest.labelBytes))")
        }
        try send(.presentAlert(alert))
    }

    /// Takes the app's menu or alert `id` away (no event follows).
    public func dismissPresented(id: UInt32) throws(ClientError) { try send(.dismissPresented(id: id)) }

    /// Keeps the screen from blanking for idleness while the app is on screen (`on`: a video
    /// plays), or lets it blank again. A blank schedule still blanks it. Version 8.
    public func idleInhibit(_ on: Bool) throws(ClientError) { try send(.idleInhibit(on: on)) }
}
