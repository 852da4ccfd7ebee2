// What Zstandard costs and saves per record, measured in Swift (PERFORMANCE.md, "Footprint").
//
//     scripts/measure-record-compression --dump /tmp/records.bin
//     swiftc -O -I Sources/CZstd scripts/measure-zstd-records.swift -o /tmp/measure-zstd-records
//     /tmp/measure-zstd-records /tmp/records.bin
//
// Trains a 16 KiB dictionary on the first 2,000 of the 20,000 benchmark-shaped JSON records
// (with the fastCover parameters ModelStore uses, and with Zstandard's default trainer), then
// compresses and decompresses the other 18,000 one by one with a digested dictionary
// (ZSTD_CDict / ZSTD_DDict) and one reused context, as ModelStore does, at levels 1 and 3.
// Prints the best of 5 passes per step.
import CZstd
import Foundation

let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1])))
var records: [[UInt8]] = []
var position = 0
while position < data.count {
    let length = data[position..<(position + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
    records.append(Array(data[(position + 4)..<(position + 4 + length)]))
    position += 4 + length
}
let samples = records[..<2_000].flatMap { $0 }
let sizes = records[..<2_000].map(\.count)
let held = Array(records[2_000...])
let heldBytes = held.reduce(0) { $0 + $1.count }
func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
func best(_ body: () -> Void) -> Double {
    var fastest = UInt64.max
    for _ in 0..<5 {
        let start = now()
        body()
        fastest = min(fastest, now() - start)
    }
    return Double(fastest) / Double(held.count)
}

func train(fastCover: Bool) -> [UInt8] {
    var dictionary = [UInt8](repeating: 0, count: 16 << 10)
    let start = now()
    let length = dictionary.withUnsafeMutableBytes { output in
        samples.withUnsafeBytes { input in
            if fastCover {
                var parameters = ZDICT_fastCover_params_t()
                parameters.k = 200
                parameters.d = 8
                parameters.f = 14
                parameters.accel = 1
                parameters.zParams.compressionLevel = 3
                return ZDICT_trainFromBuffer_fastCover(
                    output.baseAddress, output.count, input.baseAddress, sizes, UInt32(sizes.count), parameters)
            }
            return ZDICT_trainFromBuffer(output.baseAddress, output.count, input.baseAddress, sizes, UInt32(sizes.count))
        }
    }
    precondition(ZDICT_isError(length) == 0, String(cString: ZDICT_getErrorName(length)))
    print("\(fastCover ? "fastCover (k 200, d 8, f 14)" : "default trainer"): trained in "
        + String(format: "%.1f ms", Double(now() - start) / 1e6))
    return Array(dictionary[..<length])
}

for fastCover in [true, false] {
    let dictionary = train(fastCover: fastCover)
    for level in [1, 3] {
        let cdict = ZSTD_createCDict(dictionary, dictionary.count, Int32(level))!
        let ddict = ZSTD_createDDict(dictionary, dictionary.count)!
        let cctx = ZSTD_createCCtx()!
        let dctx = ZSTD_createDCtx()!
        // ZSTD_compress_usingCDict ignores these (its frames carry the content size and the
        // dictionary's id, no checksum), as ModelStore's own writes do: the sizes below match.
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0)
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 0)
        var output = [UInt8](repeating: 0, count: 4_096)
        let frames = held.map { record in
            let length = output.withUnsafeMutableBytes { out in
                record.withUnsafeBytes {
                    ZSTD_compress_usingCDict(cctx, out.baseAddress, out.count, $0.baseAddress, $0.count, cdict)
                }
            }
            return Array(output[..<length])
        }
        let compress = best {
            for record in held {
                _ = output.withUnsafeMutableBytes { out in
                    record.withUnsafeBytes {
                        ZSTD_compress_usingCDict(cctx, out.baseAddress, out.count, $0.baseAddress, $0.count, cdict)
                    }
                }
            }
        }
        let decompress = best {
            for frame in frames {
                let length = output.withUnsafeMutableBytes { out in
                    frame.withUnsafeBytes {
                        ZSTD_decompress_usingDDict(dctx, out.baseAddress, out.count, $0.baseAddress, $0.count, ddict)
                    }
                }
                precondition(ZSTD_isError(length) == 0)
            }
        }
        let ratio = Double(heldBytes) / Double(frames.reduce(0) { $0 + $1.count })
        print(String(format: "  level %d: %.2fx smaller, compress %.2f µs, decompress %.2f µs per record",
            level, ratio, compress / 1_000, decompress / 1_000))
        ZSTD_freeCDict(cdict)
        ZSTD_freeDDict(ddict)
        ZSTD_freeCCtx(cctx)
        ZSTD_freeDCtx(dctx)
    }
}
