"""The built-in formats, one package each. A package's `FORMAT` is its declaration (see
`humanjudge_schema.catalog`), registered in pyproject.toml's entry points like any plug-in's."""
