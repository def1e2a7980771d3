"""Cross-field rules, one module per family. Each module exposes `check(unit, ctx)`."""
