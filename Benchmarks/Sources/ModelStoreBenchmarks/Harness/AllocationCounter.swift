import CLevelDBBaseline
import CMallocCounter

/// Whether the malloc counter really sees allocations made inside shared libraries.
enum AllocationCounter {
    /// True when the C counter is compiled in and a LevelDB call (C++ `operator new` inside
    /// libleveldb) moved it, which proves the interposition reaches shared libraries.
    static let isSupported: Bool = {
        guard cmalloccounter_is_supported() != 0 else { return false }
        let before = cmalloccounter_allocations()
        let options = leveldb_options_create()
        let after = cmalloccounter_allocations()
        leveldb_options_destroy(options)
        return after > before
    }()
}
