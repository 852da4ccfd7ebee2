/// The bytes of the encryption tests' keys: the same seed gives the same 256-bit key in the
/// tests and in the helper process they kill while it re-keys.
public enum TestKeys {
    /// 32 bytes made from `seed`.
    public static func bytes(_ seed: UInt8) -> [UInt8] {
        (0..<32).map { seed &+ UInt8($0) &* 7 }
    }
}
