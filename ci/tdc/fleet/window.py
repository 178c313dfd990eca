"""The night's window (ci/merge --max-age DAYS): which runs may fill a row.

A signature says who made a package, not when: a month-old passing package,
validly signed by the node's key, would otherwise stand in for tonight's
failing one. A run's time is the one in its run id (context.json's run_id,
"<UTC time>-<random>", tdc.context.new_run_id), which the signature covers.
A package may fill a row only when its run began
  - at most max_age days before the merge started (default MAX_AGE), and
  - not after the merge started (SKEW seconds allowed for clocks that disagree).
Any other package is set aside with why (its row reads unverified), as is
one whose run id carries no real time."""
import datetime

MAX_AGE = 2            # days: a nightly job's runs are hours old when merged
SKEW = 300             # seconds a node's clock may be ahead of the merge host's
_FORMAT = "%Y%m%dT%H%M%SZ"


def run_time(run_id):
    """The UTC time in a run id, or None when it holds none."""
    stamp = str(run_id or "").partition("-")[0]
    try:
        return datetime.datetime.strptime(stamp, _FORMAT).replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        return None


class Window:
    def __init__(self, max_age=MAX_AGE, now=None):
        self.max_age = max_age
        self.now = now or datetime.datetime.now(datetime.timezone.utc)

    def rule(self):
        return (f"a run may fill a row when it began at most {self.max_age} day(s) before the merge "
                f"({self.now:%Y-%m-%dT%H:%M:%SZ}) and not after it")

    def problem(self, run_id):
        """Why a run may not fill tonight's row (one line), or None."""
        began = run_time(run_id)
        if began is None:
            return f"outside the night's window: run id {run_id!r} holds no time (YYYYMMDDTHHMMSSZ)"
        age = self.now - began
        if age < -datetime.timedelta(seconds=SKEW):
            return (f"outside the night's window: run {run_id} began {began:%Y-%m-%dT%H:%M:%SZ}, after "
                    f"the merge ({self.now:%Y-%m-%dT%H:%M:%SZ}): a clock or a run id that is wrong")
        if age > datetime.timedelta(days=self.max_age):
            return (f"outside the night's window: run {run_id} began {began:%Y-%m-%dT%H:%M:%SZ}, "
                    f"{age.days} day(s) before the merge, more than --max-age {self.max_age}: "
                    f"an old package is not tonight's")
        return None
