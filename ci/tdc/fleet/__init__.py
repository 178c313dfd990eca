"""Fleets: many hosts' packages merged into one matrix (tdc.fleet.merge),
compared with earlier nights (history), with their peers (outliers), and
grouped by failure signature (signatures); package provenance (signing)."""
