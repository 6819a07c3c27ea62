"""The native back end: typed IR (lp/ir) to LLVM IR to a native binary (docs/native.md)."""
