"""The caveat of a run without TDC_EXPECT, said in one place and repeated
by everything that reports a run (ci/health's message and the verdict JSON,
the console, the run's report, ci/verify's VERIFIED line). Without an
expectation a run checks the devices it found: on a GPU node whose driver
fails to initialise, the seed's rule falls back to the CPU, and a verdict
without this caveat would read the same as a healthy GPU node's."""

NO_EXPECT = "No TDC_EXPECT: this proves nothing about which accelerators should be present"


def caveat(expect):
    """NO_EXPECT when `expect` (TDC_EXPECT as a run recorded it) is empty, else None."""
    return None if str(expect or "").strip() else NO_EXPECT


def of_context(context):
    """The caveat of a run by its context.json (or summary.json's copy of it)."""
    return caveat((context or {}).get("expect") if isinstance(context, dict) else None)
