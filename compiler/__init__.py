"""The AOT compiler: typed AST to LLVM IR to a native binary (built by a later issue)."""
