// SPDX-License-Identifier: MIT
// The one scene builder: what each presented pane shows (its live surface, or during a drag the
// snapshot nearest its width, over a placeholder where the image does not reach), where the
// image lands (anchored at the pane's outer edge), and the chrome around the panes (the divider
// and its handle; a Slide Over's rounded corners, shadow and grabber). `render`, `run`, the
// goldens and the profiler all build scenes here.

/// An image the scene can show, by identity: the id is given by whoever holds the pixels and
/// stays the same for as long as they hold them (a committed buffer, a snapshot).
public struct ImageRef: Hashable, Sendable {
    public var id: UInt64
    public var width: Int
    public var height: Int

    public init(id: UInt64, width: Int, height: Int) {
        self.id = id
        self.width = width
        self.height = height
    }
}

/// What an app can show now.
public struct AppContent: Sendable {
    /// The last committed surface.
    public var live: ImageRef?
    /// Snapshots received for the drag in progress.
    public var snapshots: [ImageRef]
    /// The app's name, shown on its placeholder (cut to a label's length).
    public var name: String
    /// The app's dominant colour (its placeholder's tile), if known.
    public var tint: RGB?
    /// The app's icon (`setIcon`), square, its corners rounded in its pixels; nil: a monogram
    /// stands for it.
    public var icon: ImageRef?
    /// Blurred copies of its images, by the id of the image each was made from (a drag shows
    /// them): small, scaled up where shown.
    public var blurs: [UInt64: ImageRef]

    public init(live: ImageRef?, snapshots: [ImageRef] = [], name: String = "", tint: RGB? = nil, icon: ImageRef? = nil, blurs: [UInt64: ImageRef] = [:]) {
        self.live = live
        self.snapshots = snapshots
        self.name = SceneLabel.cut(name)
        self.tint = tint
        self.icon = icon
        self.blurs = blurs
    }

    /// The monogram that stands for an app without an icon: the first letter of its name.
    public var monogram: String { name.first.map { String($0).uppercased() } ?? "" }
}

/// Chrome the renderer draws from a description, sized by the node's `imageRect`.
public enum Chrome: Hashable, Sendable {
    /// A soft shadow cast to the left of an edge: black, `alpha` at its right side fading to
    /// nothing at its left.
    case shadow(alpha: UInt8)
    /// A pill (a rectangle with fully rounded ends): the divider's handle, the grabber.
    case pill(RGB, alpha: UInt8)
    /// Text in `color`, `pixelSize` pixels to the em, centred in the node's picture.
    case text(String, RGB, pixelSize: Int)
    /// A soft shadow all round a rounded rectangle inset `radius` pixels in the node's picture
    /// (a floating window's): black, `alpha` under the rectangle fading to nothing at the
    /// picture's edges; `corner` is the rectangle's corner radius.
    case dropShadow(alpha: UInt8, radius: Int, corner: Int)
    /// An app's stand-in icon: a rounded square (`corner` pixels) in `color` filling the
    /// picture, with `letter` centred on it in white or black (whichever reads on it).
    case monogram(String, RGB, corner: Int)
    /// Translucent black (`alpha`) filling the picture, its corners rounded by `corner` pixels:
    /// under a window's controls, a stashed window's tab.
    case scrim(alpha: UInt8, corner: Int)
    /// A control glyph filling the picture, in `ink` (white: a window's controls).
    case glyph(Glyph, ink: RGB = RGB(red: 255, green: 255, blue: 255))
    /// An opaque rounded rectangle in `color` filling the picture, its corners rounded by
    /// `corner` pixels: a key of the on-screen keyboard.
    case roundedRect(RGB, corner: Int)
}


/// One thing placed on the logical screen, in logical pixels.
public struct SceneNode: Hashable, Sendable {
    /// What the node is, for the damage tracker: the same key in two frames is the same thing,
    /// perhaps moved.
    public enum Key: Hashable, Sendable, Comparable {
        case placeholder(AppID)
        case surface(AppID)
        /// A drag's blurred picture of the app.
        case blur(AppID)
        /// The app's icon (or monogram), on its placeholder or its blurred picture.
        case icon(AppID)
        /// The status bar's pieces, left to right.
        case status(StatusBar.Item)
        case shadow(AppID)
        /// A Slide Over's left-edge bar and the small handle on it.
        case edgeBar(AppID)
        case edgeHandle(AppID)
        case grabber(AppID)
        case divider
        case handle
        /// An app's Picture in Picture window and its shadow.
        case pipShadow(AppID)
        case pip(AppID)
        /// Its controls (the dimming under them, close, back to the app, play/pause) and, stashed,
        /// its tab and the tab's chevron.
        case pipScrim(AppID)
        case pipClose(AppID)
        case pipRestore(AppID)
        case pipPlayPause(AppID)
        case pipTab(AppID)
        case pipChevron(AppID)
        /// The on-screen keyboard: its background, each key and each key's label.
        case keyboard
        case keyboardKey(Int)
        case keyboardLabel(Int)
        /// A long press's popup on the keyboard: its parts, numbered.
        case keyboardPopup(Int)
        /// An app's menu or alert: its parts, numbered (the app's number in the high bits).
        case presented(Int)
        /// The pointer's round cursor (over everything).
        case cursor
    }

    public enum Content: Hashable, Sendable {
        /// An app's pixels; `live` for its committed surface (which changes with commits), not
        /// a snapshot.
        case image(ImageRef, live: Bool)
        /// An opaque flat colour.
        case solid(RGB)
        case chrome(Chrome)
    }

    public var key: Key
    public var content: Content
    /// Where the content's pixels land (a solid colour fills its clip).
    public var imageRect: Rect
    /// What it is clipped to (a pane, for an app's image).
    public var clip: Rect
    /// The clip's corners are rounded by this radius (a Slide Over): what lies outside the
    /// arcs shows what is under the node.
    public var cornerRadius: Int
    /// How opaque it is drawn (255: as its pixels say), for what fades.
    public var opacity: UInt8
    /// The image's edge pixels extend over the rest of the clip (a drag's blurred picture).
    public var padded = false

    public init(key: Key, content: Content, imageRect: Rect, clip: Rect, cornerRadius: Int = 0, opacity: UInt8 = 255) {
        self.key = key
        self.content = content
        self.imageRect = imageRect
        self.clip = clip
        self.cornerRadius = cornerRadius
        self.opacity = opacity
    }

    /// An app's surface node.
    public init(app: AppID, image: ImageRef, live: Bool, imageRect: Rect, clip: Rect, cornerRadius: Int = 0) {
        self.init(key: .surface(app), content: .image(image, live: live), imageRect: imageRect, clip: clip, cornerRadius: cornerRadius)
    }

    /// The app whose pane this node belongs to, if any.
    public var app: AppID? {
        switch key {
        case .placeholder(let a), .surface(let a), .blur(let a), .icon(let a), .shadow(let a), .edgeBar(let a), .edgeHandle(let a), .grabber(let a), .pipShadow(let a), .pip(let a),
             .pipScrim(let a), .pipClose(let a), .pipRestore(let a), .pipPlayPause(let a), .pipTab(let a), .pipChevron(let a): a
        case .divider, .handle, .status, .cursor, .keyboard, .keyboardKey, .keyboardLabel, .keyboardPopup, .presented: nil
        }
    }

    /// The app's image this node shows, if it shows one.
    public var image: ImageRef? {
        if case .image(let ref, _) = content { return ref }
        return nil
    }

    /// Whether it shows an app's live surface.
    public var live: Bool {
        if case .image(_, true) = content { return true }
        return false
    }
}

/// Nodes of a scene built as one: the panes with their chrome, the Picture in Picture windows,
/// the status bar. A layer built from the same inputs as before keeps its generation and its
/// nodes (shared, not copied): the damage tracker skips a layer whose generation is the last
/// frame's. Nil: built anew for every frame (diffed node by node).
public struct SceneLayer: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case panes, windows, presentations, keyboard, statusBar, cursor }
    public var kind: Kind
    public var generation: UInt64?
    public var nodes: [SceneNode]

    public init(kind: Kind, generation: UInt64? = nil, nodes: [SceneNode]) {
        self.kind = kind
        self.generation = generation
        self.nodes = nodes
    }
}

/// The scene of one frame: layers of nodes bottom to top over black, on a logical screen of
/// `size` pixels.
public struct SceneGraph: Equatable, Sendable {
    public var size: Size
    public private(set) var layers: [SceneLayer]

    /// A scene of one layer of panes (built anew each frame).
    public init(size: Size, nodes: [SceneNode]) {
        self.size = size
        layers = [SceneLayer(kind: .panes, nodes: nodes)]
    }

    /// A scene of no nodes, to add layers to.
    public init(size: Size) {
        self.size = size
        layers = []
        layers.reserveCapacity(3)
    }

    /// Adds a layer on top.
    public mutating func append(_ kind: SceneLayer.Kind, generation: UInt64? = nil, nodes: [SceneNode]) {
        layers.append(SceneLayer(kind: kind, generation: generation, nodes: nodes))
    }

    /// Every node, bottom to top (a new array: for looking, not for frames).
    public var nodes: [SceneNode] { layers.flatMap(\.nodes) }

    /// Whether a node satisfies `test`.
    public func contains(where test: (SceneNode) -> Bool) -> Bool { layers.contains { $0.nodes.contains(where: test) } }

    /// The nodes that show an app's image (its surface or a snapshot).
    public var surfaces: [SceneNode] { nodes.filter { $0.image != nil } }

    /// Whether the scene shows `app`'s pane: its surface or a snapshot, its placeholder, or its
    /// blurred picture.
    public func showsPane(of app: AppID) -> Bool {
        contains { n in
            switch n.key {
            case .surface(let a), .placeholder(let a), .blur(let a): a == app
            default: false
            }
        }
    }
}


/// Builds scenes from presented panes. Pure.
public enum SceneBuilder {
    /// The scene for `panes` (bottom to top) on `profile`'s screen in `orientation`: each pane
    /// shows its app's live surface, or when it prefers snapshots the one nearest its width
    /// (the live surface until one arrives), over a placeholder where the image does not
    /// reach; the divider with its handle between panes side by side; a floating pane's
    /// shadow, rounded corners and grabber. Panes of apps with no content are left out.
    public static func build(
        panes: [PresentedPane], profile: DeviceProfile, orientation: Orientation, floating: [FloatingWindow] = [], statusBar: StatusBar? = nil,
        text: TextMetrics = BitmapMetrics(), content: (AppID) -> AppContent?
    ) -> SceneGraph {
        let scale = profile.scale
        let size = profile.pixelSize(orientation)
        var nodes: [SceneNode] = []
        nodes.reserveCapacity(5 * panes.count + 2)
        let divider = PresentedPane.divider(between: panes, screen: profile.screenSize(orientation))
        var dividerDrawn = false
        func drawDivider() {
            guard let d = divider, !dividerDrawn else { return }
            dividerDrawn = true
            let r = d.scaled(by: scale)
            nodes.append(SceneNode(key: .divider, content: .solid(ChromeStyle.dividerColor), imageRect: r, clip: r))
            let hw = ChromeStyle.handleSize.width * scale, hh = ChromeStyle.handleSize.height * scale
            guard r.width >= hw else { return }
            let handle = Rect(x: r.x + (r.width - hw) / 2, y: r.y + (r.height - hh) / 2, width: hw, height: hh)
            nodes.append(SceneNode(key: .handle, content: .chrome(.pill(ChromeStyle.handleColor, alpha: 255)), imageRect: handle, clip: handle))
        }
        for (i, p) in panes.enumerated() {
            guard let c = content(p.app) else { continue }
            // The divider lies between the panes: over the one below, under the one above.
            if i > 0 { drawDivider() }
            let clip = p.frame.scaled(by: scale)
            guard !clip.isEmpty else { continue }
            // A lifted pane (its pill dragged) wears the floating look without the edge bar.
            let floating = p.lifted ? 1 : max(0, min(1, p.floating))
            let radius = Int((Double(ChromeStyle.cornerRadius * scale) * floating).rounded())
            if floating > 0 {
                let w = ChromeStyle.shadowWidth * scale
                let shadow = Rect(x: clip.x - w, y: clip.y, width: w, height: clip.height)
                let alpha = UInt8((ChromeStyle.shadowAlpha * floating * 255).rounded())
                if alpha > 0 { nodes.append(SceneNode(key: .shadow(p.app), content: .chrome(.shadow(alpha: alpha)), imageRect: shadow, clip: shadow)) }
                // A thin dark bar along its left edge (between the rounded corners) with a small
                // light handle, as iOS 9's Slide Over.
                let bw = ChromeStyle.edgeBarWidth * scale, inset = ChromeStyle.cornerRadius * scale
                let bar = Rect(x: clip.x - bw, y: clip.y + inset, width: bw, height: clip.height - 2 * inset)
                let barAlpha = UInt8((max(0, min(1, p.floating)) * 255).rounded())
                if barAlpha > 0, bar.height > 0 {
                    nodes.append(SceneNode(key: .edgeBar(p.app), content: .chrome(.pill(ChromeStyle.dividerColor, alpha: barAlpha)), imageRect: bar, clip: bar))
                    let hw = max(1, bw / 3), hh = ChromeStyle.edgeHandleHeight * scale
                    let handle = Rect(x: bar.x + (bw - hw) / 2, y: bar.y + (bar.height - hh) / 2, width: hw, height: hh)
                    if handle.height <= bar.height {
                        nodes.append(SceneNode(key: .edgeHandle(p.app), content: .chrome(.pill(ChromeStyle.handleColor, alpha: barAlpha)), imageRect: handle, clip: handle))
                    }
                }
            }
            var image = c.live
            var live = true
            if p.prefersSnapshots, let best = c.snapshots.min(by: { abs($0.width - clip.width) < abs($1.width - clip.width) }) {
                image = best
                live = false
            }
            let tile = c.tint ?? ChromeStyle.neutralTile
            // While the divider is held the pane shows its app blurred, with its icon; on the
            // release the blur fades off the snapshot as the pane settles.
            let blur = max(0, min(1, p.blur))
            let fuzzy = blur > 0 ? (image.flatMap { c.blurs[$0.id] }.map { ($0, image!) } ?? c.live.flatMap { l in c.blurs[l.id].map { ($0, l) } }) : nil
            if blur >= 1 {
                // An app about to be dismissed is dimmed (drawn translucent over black).
                let shown = UInt8(((1 - max(0, min(1, p.dim))) * 255).rounded())
                if let (b, source) = fuzzy {
                    nodes.append(blurNode(p.app, b, of: source, in: clip, anchor: p.anchor, opacity: shown))
                } else {
                    nodes.append(SceneNode(key: .placeholder(p.app), content: .solid(tile.scaled(Double(shown) / 255)), imageRect: clip, clip: clip))
                }
                if let i = icon(c, tile: tile, in: clip, scale: scale, key: .icon(p.app), opacity: shown) { nodes.append(i) }
            } else {
                let placed = image.map { place($0, in: clip, anchor: p.anchor) }
                let (bareBounds, band) = bare(clip, outside: placed)
                // No black gaps: a flat tile in the app's colour under the image where it does
                // not reach (clipped to what it leaves bare, so that a band growing with a drag
                // repaints only what it gained), the image, and the app's icon in the widest part
                // the image leaves bare.
                if let b = bareBounds { nodes.append(SceneNode(key: .placeholder(p.app), content: .solid(tile), imageRect: b, clip: b)) }
                if let placed, let image { nodes.append(SceneNode(app: p.app, image: image, live: live, imageRect: placed, clip: clip, cornerRadius: radius)) }
                let fade = UInt8((blur * 255).rounded())
                if let (b, source) = fuzzy, fade > 0 {
                    nodes.append(blurNode(p.app, b, of: source, in: clip, anchor: p.anchor, opacity: fade))
                    if let i = icon(c, tile: tile, in: clip, scale: scale, key: .icon(p.app), opacity: fade) { nodes.append(i) }
                } else if let band, let i = icon(c, tile: tile, in: band, scale: scale, key: .icon(p.app)) {
                    nodes.append(i)
                }
            }
            // A floating pane's grabber; in Split View each pane's pill at its top centre, in the
            // status bar's band (dragged over the other pane it swaps the apps).
            if floating > 0 || divider != nil {
                let gw = ChromeStyle.grabberSize.width * scale, gh = ChromeStyle.grabberSize.height * scale
                let grabber = Rect(x: clip.x + (clip.width - gw) / 2, y: clip.y + ChromeStyle.grabberTop * scale, width: gw, height: gh)
                let alpha = UInt8((ChromeStyle.grabberAlpha * (floating > 0 ? floating : 1) * 255).rounded())
                if alpha > 0, grabber.width <= clip.width {
                    nodes.append(SceneNode(key: .grabber(p.app), content: .chrome(.pill(ChromeStyle.grabberColor, alpha: alpha)), imageRect: grabber, clip: grabber))
                }
            }
        }
        drawDivider()
        var graph = SceneGraph(size: size)
        graph.append(.panes, nodes: nodes)
        graph.append(.windows, nodes: floating.flatMap { window($0, scale: scale) })
        if let statusBar { graph.append(.statusBar, nodes: statusBar.nodes(screenWidth: size.width, scale: scale, text: text)) }
        return graph
    }

    /// The app's icon (its `setIcon` picture, else its monogram on `tile`), 60 pt with rounded
    /// corners, centred in `band`; nil when it does not fit with a margin.
    static func icon(_ c: AppContent, tile: RGB, in band: Rect, scale: Int, key: SceneNode.Key, opacity: UInt8 = 255) -> SceneNode? {
        let side = ChromeStyle.iconPoints * scale, margin = ChromeStyle.iconMargin * scale
        guard side + 2 * margin <= band.width, side + 2 * margin <= band.height else { return nil }
        let r = Rect(x: band.x + (band.width - side) / 2, y: band.y + (band.height - side) / 2, width: side, height: side)
        // Both come with their corners rounded in their pixels (so that they fade evenly).
        if let i = c.icon {
            return SceneNode(key: key, content: .image(i, live: false), imageRect: r, clip: r, opacity: opacity)
        }
        guard !c.monogram.isEmpty else { return nil }
        return SceneNode(key: key, content: .chrome(.monogram(c.monogram, tile, corner: ChromeStyle.iconCornerRadius * scale)), imageRect: r, clip: r, opacity: opacity)
    }

    /// A drag's blurred picture of `source` in a pane: where `source` itself would land, its
    /// edges extended over the rest of the pane (`padded`), so that it fills the pane however
    /// wide the drag makes it, keeps the picture's shapes where they are, and stays put while
    /// the divider moves (a drag frame repaints the strip the divider swept).
    static func blurNode(_ app: AppID, _ blurred: ImageRef, of source: ImageRef, in clip: Rect, anchor: Anchor, opacity: UInt8 = 255) -> SceneNode {
        var n = SceneNode(key: .blur(app), content: .image(blurred, live: false), imageRect: place(source, in: clip, anchor: anchor), clip: clip, opacity: opacity)
        n.padded = true
        return n
    }

    /// What `placed` leaves bare of a pane's `clip` (up to four pieces, as `Region.subtract`
    /// cuts them; every frame of a settle asks, so without a region): their bounds, and the
    /// largest piece (the first of equals). Nothing placed: the whole clip.
    static func bare(_ clip: Rect, outside placed: Rect?) -> (bounds: Rect?, largest: Rect?) {
        guard let placed else { return (clip, clip) }
        var bounds: Rect?, largest: Rect?
        Region.forEachPiece(of: clip, outside: placed) { r in
            bounds = bounds?.union(r) ?? r
            if largest.map({ $0.width * $0.height < r.width * r.height }) ?? true { largest = r }
        }
        return (bounds, largest)
    }

    /// Where an image lands in a pane: at its top-left, or flush with its right edge when the
    /// pane is anchored trailing (the right pane of a divider drag).
    static func place(_ image: ImageRef, in clip: Rect, anchor: Anchor) -> Rect {
        let x = anchor == .leading ? clip.x : clip.maxX - image.width
        return Rect(x: x, y: clip.y, width: image.width, height: image.height)
    }
}

/// Text a scene node carries (a placeholder's app name, the status bar's pieces): a line of at
/// most `capacity` UTF-8 bytes, so that a client's name cannot make the scene hold more memory
/// (a label that long would not fit a pane's band anyway).
public enum SceneLabel {
    public static let capacity = 31

    /// `text` as it is, or cut at a character boundary and ended with "…" to fit `capacity`.
    public static func cut(_ text: String) -> String {
        guard text.utf8.count > capacity else { return text }
        var out = ""
        for c in text {
            if out.utf8.count + String(c).utf8.count + "…".utf8.count > capacity { break }
            out.append(c)
        }
        return out + "…"
    }
}
