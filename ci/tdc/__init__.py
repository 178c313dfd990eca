"""TDC's Python tools: one package, imported the ordinary way (a script's own
folder is on sys.path, so ci/<tool> finds ci/tdc)."""
