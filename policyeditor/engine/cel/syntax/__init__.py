"""CEL source and AST tooling: the cel.expr protos, walking, a lexer and source rewrites."""
