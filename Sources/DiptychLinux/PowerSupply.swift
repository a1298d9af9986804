// SPDX-License-Identifier: MIT
// The system's battery, as the kernel's power-supply class shows it.

/// Batteries under `/sys/class/power_supply`.
public enum PowerSupply {
    /// The charge in percent of the first battery (a supply whose `type` is `Battery` with a
    /// `capacity`), or nil when the system has none. `root` is for tests.
    public static func batteryPercent(root: String = "/sys/class/power_supply") -> Int? {
        guard let names = try? Files.list(root) else { return nil }
        for name in names.sorted() {
            func read(_ file: String) -> String? {
                (try? Files.read("\(root)/\(name)/\(file)")).map { String(decoding: $0, as: UTF8.self).filter { $0 != "\n" } }
            }
            guard read("type") == "Battery", let text = read("capacity"), let percent = Int(text) else { continue }
            return min(100, max(0, percent))
        }
        return nil
    }
}
