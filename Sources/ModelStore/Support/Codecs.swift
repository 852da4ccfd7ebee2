// The codecs live in their own module, ModelStoreCodecs, so that a program can use the fast coders without the
// store. ModelStore re-exports it whole: `import ModelStore` keeps giving ModelCodec, ModelCodecIdentifier,
// JSONModelCodec, BinaryModelCodec and PropertyListModelCodec, with all their members, as before the split.
// (Type aliases would not: under MemberImportVisibility a member is only visible where its own module is imported.)
@_exported public import ModelStoreCodecs
