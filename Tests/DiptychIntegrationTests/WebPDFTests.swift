// SPDX-License-Identifier: MIT
// Pages nobody here wrote: Debian's pdf.js viewer (libjs-pdf) opening a PDF the test makes, in
// Split View beside a native app, scrolled with a finger and resized by a divider drag; and a
// Leaflet map (libjs-leaflet) panned by a finger, which must not zoom.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

private let viewer = "/usr/share/javascript/pdf/web/viewer.html"
/// The folders the viewer's page reaches (served by the web client: a file: page reaches only
/// the folders it is given): its own tree and, in Debian, pdf.js-common's images and locales
/// its web/ folder links to.
private let viewerRoots = ["/usr/share/javascript/pdf", "/usr/share/pdf.js"].filter { Files.isDirectory($0) }
private let webAndPDFAreThere = access(Harness.binDirectory + "/diptych-web", X_OK) == 0 && access(viewer, R_OK) == 0
private let leaflet = "/usr/share/javascript/leaflet"
private let webAndLeafletAreThere = access(Harness.binDirectory + "/diptych-web", X_OK) == 0 && access("\(leaflet)/leaflet.js", R_OK) == 0

/// A PDF of `pages` letter pages, each with "Page N" in large type, titled `title`.
func makePDF(pages: Int, title: String) -> [UInt8] {
    var objects: [String] = []
    let kids = (0..<pages).map { "\(3 + 2 * $0) 0 R" }.joined(separator: " ")
    objects.append("<< /Type /Catalog /Pages 2 0 R >>")
    objects.append("<< /Type /Pages /Kids [\(kids)] /Count \(pages) >>")
    let font = 3 + 2 * pages, info = font + 1
    for p in 0..<pages {
        let text = "BT /F1 72 Tf 72 600 Td (Page \(p + 1)) Tj ET 0 0 1 rg 72 120 468 300 re f"
        objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 \(font) 0 R >> >> /Contents \(4 + 2 * p) 0 R >>")
        objects.append("<< /Length \(text.utf8.count) >>\nstream\n\(text)\nendstream")
    }
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    objects.append("<< /Title (\(title)) >>")
    var out = "%PDF-1.4\n"
    var offsets: [Int] = []
    for (i, o) in objects.enumerated() {
        offsets.append(out.utf8.count)
        out += "\(i + 1) 0 obj\n\(o)\nendobj\n"
    }
    let xref = out.utf8.count
    out += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
    for o in offsets { out += String(repeating: "0", count: 10 - String(o).count) + "\(o) 00000 n \n" }
    out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R /Info \(info) 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
    return Array(out.utf8)
}

@Suite(.enabled(if: webAndPDFAreThere, "needs diptych-web (WPE WebKit) and Debian's libjs-pdf: make test installs both"))
struct WebPDFTests {
    /// pdf.js opens the PDF beside notes (its pages drawn, its title the PDF's), a finger
    /// scrolls its pages (the pixels move), and a divider drag leaves it the compact third,
    /// drawn there.
    @Test func pdfJSOpensScrollsAndResizesInSplitView() throws {
        let dir = Harness.temporaryDirectory("web-pdf")
        try Files.writeAtomically("\(dir)/test.pdf", bytes: makePDF(pages: 3, title: "Diptych test"))
        var steps = #"[{"at":0,"waitFor":"secondary"},{"at":0,"capture":"open.png"},{"at":100,"touch":{"id":1,"phase":"down","x":1500,"y":1300}}"#
        for k in 1...8 { steps += #",{"at":\#(100 + 16 * k),"touch":{"id":1,"phase":"motion","x":1500,"y":\#(1300 - 100 * k)}}"# }
        steps += #",{"at":240,"touch":{"id":1,"phase":"up","x":1500,"y":500}},{"at":1500,"waitFor":"secondary"},{"at":1500,"capture":"scrolled.png"}"#
        // The divider (its middle at 1024 px) dragged right: notes takes two thirds, the PDF the rest.
        steps += #",{"at":2000,"touch":{"id":2,"phase":"down","x":1024,"y":800}}"#
        for k in 1...6 { steps += #",{"at":\#(2000 + 16 * k),"touch":{"id":2,"phase":"motion","x":\#(1024 + 60 * k),"y":800}}"# }
        steps += #",{"at":2112,"touch":{"id":2,"phase":"up","x":1384,"y":800}},{"at":2600,"wait":true},{"at":2600,"waitFor":"secondary"},{"at":2600,"capture":"dragged.png"}]"#
        // The viewer's folders and the PDF's.
        let roots = (viewerRoots + [dir]).map { " --file-root \($0)" }.joined()
        let scenario = #"{"device":"ipad","primary":"notes","secondary":"web:file://\#(viewer)?file=\#(dir)/test.pdf\#(roots)","arrangement":"split-1/2","steps":\#(steps)}"#
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(scenario.utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 120_000)
        #expect(r.status == 0, "\(r.stderr)")
        let log = try Harness.events("\(dir)/events-secondary.jsonl")
        #expect(log.contains { $0["event"]?.stringValue == "pageTitle" && $0["title"]?.stringValue?.hasPrefix("Diptych test") == true }, "\(r.stderr)")
        let open = try PixelImage.readPNG(from: "\(dir)/open.png"), scrolled = try PixelImage.readPNG(from: "\(dir)/scrolled.png")
        // Page 1's blue box in the pane, somewhere; after the scroll, the pane's pixels moved.
        func blue(_ image: PixelImage, from x0: Int) -> Int {
            var n = 0
            for y in stride(from: 0, to: image.height, by: 8) { for x in stride(from: x0, to: image.width, by: 8) where image.pixel(x: x, y: y) & 0xFFFFFF == 0x0000FF { n += 1 } }
            return n
        }
        #expect(blue(open, from: 1040) > 100, "no page drawn in \(dir)/open.png")
        var moved = 0
        for y in stride(from: 100, to: 1500, by: 10) where open.pixel(x: 1500, y: y) != scrolled.pixel(x: 1500, y: y) { moved += 1 }
        #expect(moved > 10, "the pages did not move in \(dir)/scrolled.png")
        let configures = log.filter { $0["event"]?.stringValue == "configure" }
        #expect(configures.last?["frame"]?["width"]?.intValue == 320, "\(configures.last.map { "\($0)" } ?? "")")
        #expect(blue(try PixelImage.readPNG(from: "\(dir)/dragged.png"), from: 1408) > 50, "no page drawn in \(dir)/dragged.png")
    }
}

@Suite(.enabled(if: webAndLeafletAreThere, "needs diptych-web (WPE WebKit) and Debian's libjs-leaflet: make test installs both"))
struct WebMapTests {
    /// A one-finger drag pans a Leaflet map (its centre moves) and never zooms it (WebKit's
    /// touch scrolling is wheel events, hidden from the page while a finger is down).
    @Test func aFingerPansAMapWithoutZoomingIt() throws {
        let dir = Harness.temporaryDirectory("web-map")
        try Files.writeAtomically("\(dir)/map.html", bytes: Array("""
            <!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>-</title>
            <link rel="stylesheet" href="\(leaflet)/leaflet.css"><script src="\(leaflet)/leaflet.js"></script>
            <style>html,body,#m{margin:0;height:100%}</style><div id="m"></div>
            <script>var map = L.map('m', {center: [0, 0], zoom: 3, zoomAnimation: false, inertia: false});
            L.rectangle([[-20, -20], [20, 20]], {color: '#ff0000', fillOpacity: 1}).addTo(map);
            function report() { var c = map.getCenter(); document.title = JSON.stringify({zoom: map.getZoom(), lat: Math.round(c.lat)}); }
            map.on('zoomend moveend', report); report();</script>
            """.utf8))
        var steps = #"[{"at":0,"waitFor":"primary"},{"at":100,"touch":{"id":1,"phase":"down","x":1000,"y":1100}}"#
        for k in 1...8 { steps += #",{"at":\#(100 + 16 * k),"touch":{"id":1,"phase":"motion","x":1000,"y":\#(1100 - 60 * k)}}"# }
        steps += #",{"at":240,"touch":{"id":1,"phase":"up","x":1000,"y":620}},{"at":1200,"waitFor":"primary"}]"#
        // (Leaflet by its path, its folder served beside the page's.)
        let scenario = #"{"device":"ipad","primary":"web:\#(dir)/map.html --file-root \#(dir) --file-root \#(leaflet)","arrangement":"full","steps":\#(steps)}"#
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(scenario.utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 120_000)
        #expect(r.status == 0, "\(r.stderr)")
        let title = try Harness.events("\(dir)/events-primary.jsonl").last { $0["event"]?.stringValue == "pageTitle" }?["title"]?.stringValue ?? "{}"
        let map = try JSONValue.parse(title)
        #expect(map["zoom"]?.intValue == 3, "the map zoomed: \(title)")
        #expect((map["lat"]?.intValue ?? 0) < -5, "the map did not pan: \(title)")
    }
}
