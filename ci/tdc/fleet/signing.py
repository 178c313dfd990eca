"""Package provenance: an OpenSSH signature over a package's MANIFEST.

The MANIFEST lists the sha256 of every other file (context.json with the host
the package claims, STATEMENT, results), so one signature over it covers the
whole package. `ssh-keygen -Y sign` makes it with the lab's or the node's key
(a node's own /etc/ssh/ssh_host_ed25519_key will do); `ssh-keygen -Y verify`
checks it against an allowed_signers file (ssh-keygen(1), "ALLOWED SIGNERS"),
whose principals are host names or patterns:

    n7        ssh-ed25519 AAAA...      # node n7's own key
    n*,gpu-*  ssh-ed25519 AAAA...      # the lab key, for every node it names

A package verifies only when it is signed, the signature is good over its
MANIFEST in the namespace below, and the signer is allowed for every name
the package is filed under: the host it claims, the Slurm node it claims
(context.json's slurm.node) and, in a merge, the node the scheduler ran its
task on (tdc.verify.check_signature asks once per name). Every other
outcome is a Verdict with one line saying why. Needs ssh-keygen (Debian's
openssh-client, 8.2 or later)."""
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from tdc import safeio
from tdc.errors import InputError
from tdc.packaging import SIGNATURE  # noqa: F401 - the file name belongs to the package format

NAMESPACE = "tdc-package"  # a signature made for anything else never verifies here
_TIMEOUT = 60


class SigningError(InputError):
    """Cannot sign or cannot check at all (no ssh-keygen, unreadable key,
    no allowed signer): bad input, one line, exit 2."""


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str          # one line: "signed by n7 (ED25519 SHA256:...)" or why not
    signer: str = ""     # the principals allowed_signers gives the signing key, if any


def _ssh_keygen():
    path = shutil.which("ssh-keygen")
    if not path:
        raise SigningError("ssh-keygen not found: install Debian's openssh-client")
    return path


def _run(args, data):
    try:
        return subprocess.run([_ssh_keygen(), *args], input=data, capture_output=True,
                              timeout=_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SigningError(f"ssh-keygen {args[0]} {args[1]}: {error}")


def _last_line(run):
    lines = (run.stderr or run.stdout).decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else f"exit {run.returncode}"


def sign(manifest, key):
    """Writes MANIFEST.sig next to manifest, signed with the private key file key."""
    if not os.path.isfile(key):
        raise SigningError(f"--sign-key {key}: no such key file")
    with open(manifest, "rb") as f:
        data = f.read()
    run = _run(["-Y", "sign", "-n", NAMESPACE, "-f", key], data)
    if run.returncode != 0 or not run.stdout.startswith(b"-----BEGIN SSH SIGNATURE-----"):
        raise SigningError(f"cannot sign with {key}: {_last_line(run)}")
    path = os.path.join(os.path.dirname(manifest), SIGNATURE)
    safeio.write_bytes(path, run.stdout, "signature")
    return path


def check_allowed_signers(path):
    """Refuses an allowed_signers file that cannot be read or has no key, and
    an empty name (an unset variable, `--allowed-signers "$TDC_ALLOWED_SIGNERS"`),
    which would otherwise turn the check off without a word."""
    if not path.strip():
        raise SigningError("--allowed-signers is empty: name an allowed_signers file (is the variable "
                           "that should hold it unset?); without the option nothing checks who made a package")
    try:
        with open(path) as f:
            lines = [l for l in f.read().splitlines() if l.strip() and not l.lstrip().startswith("#")]
    except (OSError, UnicodeDecodeError) as error:
        raise SigningError(f"cannot read allowed signers file {path}: {getattr(error, 'strerror', error)}")
    if not lines:
        raise SigningError(f"allowed signers file {path} lists no signer")


def principal_problem(name):
    """Why name cannot be a host a signer is allowed for, or None: empty,
    longer than a host name, or holding a character no host name has (a
    control or format character, a surrogate, white space, a comma, which
    separates principals). Such a name never reaches ssh-keygen (a NUL in an
    argument is an error there, not a verdict)."""
    if not isinstance(name, str) or not name:
        return "it is empty"
    if len(name) > 253:
        return f"it is {len(name)} characters long, more than a host name has (253)"
    odd = next((c for c in name if not c.isprintable() or c.isspace() or c == ","), None)
    return None if odd is None else f"it holds {odd!r}, which no host name has"


def verify(manifest_data, signature_data, allowed_signers, host, claim="that the package claims"):
    """Whether signature_data (bytes, or None when the package has none) is a
    good signature over manifest_data by a key allowed_signers allows for
    host; claim says in the verdict what host is to the package."""
    if signature_data is None:
        return Verdict(False, f"unsigned: the package has no {SIGNATURE} (ci/package --sign-key)")
    if not host:
        return Verdict(False, "the package names no host (context.json 'host'): no signer can match it")
    why = principal_problem(host)
    if why:
        return Verdict(False, f"not a host name: {host!r} {claim}: {why}: no signer can match it")
    with tempfile.NamedTemporaryFile(prefix="tdc-sig-") as sig:
        sig.write(signature_data)
        sig.flush()
        run = _run(["-Y", "verify", "-f", allowed_signers, "-I", host, "-n", NAMESPACE, "-s", sig.name],
                   manifest_data)
        if run.returncode == 0:
            key = _key_of(run.stdout.decode(errors="replace"))
            return Verdict(True, f"signed for {host}{key}", host)
        # The file lists the key, but its line's options refuse it here
        # (namespaces=, valid-after=, valid-before=): ssh-keygen says which
        # on the way, in words about the key that we put in words about the line.
        said = run.stderr.decode(errors="replace")
        refused = _refusal(said)
        if refused:
            return Verdict(False, f"signer's key refused by its allowed_signers line: {refused}")
        # A line for this host whose options ssh-keygen cannot read is ignored
        # as if absent: said with whatever else is wrong.
        ignored = "".join(f" ({line})" for line in _ignored(said, host))
        # Why not: a damaged or foreign signature, or a good one by a key
        # that is not allowed for this host (whose, if the file knows it).
        good = _run(["-Y", "check-novalidate", "-n", NAMESPACE, "-s", sig.name], manifest_data)
        if good.returncode != 0:
            return Verdict(False, f"bad signature: {SIGNATURE} does not verify over MANIFEST "
                                  f"({_last_line(good)})")
        key = _key_of(good.stdout.decode(errors="replace"))
        found = _run(["-Y", "find-principals", "-f", allowed_signers, "-s", sig.name], b"")
        principals = found.stdout.decode(errors="replace").split() if found.returncode == 0 else []
        if principals:
            return Verdict(False, f"signer does not match host: signed by a key allowed for "
                                  f"{','.join(principals)}{key}, not for {host} {claim}{ignored}",
                           ",".join(principals))
        return Verdict(False, f"unknown signer: no line of {allowed_signers} that ssh-keygen reads allows "
                              f"the signing key{key}{ignored}")


# ssh-keygen's lines (sshsig.c), "FILE:LINE: ...", about the line that holds the signer's key.
_SAID = re.compile(r"^(?P<where>.*:\d+): (?:"
                   r"key is not permitted for use in signature namespace (?P<namespace>.*)"
                   r"|key has expired: verify time (?P<now>\S+) > valid-before (?P<before>\S+)"
                   r"|key is not yet valid: verify time (?P<then>\S+) < valid-after (?P<after>\S+)"
                   r"|bad options: (?P<bad>.*))$")


def _refusal(text):
    """What the line holding the signer's key says against it, in words
    about the line (ssh-keygen's "key has expired" is about the line's
    window, not the key), or ""."""
    for line in text.splitlines():
        said = _SAID.match(line.strip())
        if not said or said["bad"] is not None:
            continue
        where = said["where"]
        if said["namespace"] is not None:
            return (f"{where} limits the key to other namespaces: its namespaces= option leaves out "
                    f"{said['namespace']}, the namespace packages are signed in")
        if said["before"]:
            return (f"{where} allows the key only before {said['before']} (valid-before=), and this check ran at "
                    f"{said['now']}: the time of the check counts, not of the signing, which no signature states")
        return (f"{where} allows the key only from {said['after']} (valid-after=), and this check ran at "
                f"{said['then']}")
    return ""


def _ignored(text, host):
    """["ssh-keygen ignores FILE:LINE, a line for host: bad options: why"]:
    the lines for host whose options ssh-keygen could not read."""
    return [f"ssh-keygen ignores {said['where']}, a line for {host}: bad options: {said['bad']}"
            for said in map(_SAID.match, (line.strip() for line in text.splitlines()))
            if said and said["bad"] is not None]


def _key_of(text):
    """' (ED25519 key SHA256:...)' from ssh-keygen's 'Good ... signature ...' line."""
    marker = " with "
    for line in text.splitlines():
        if line.startswith("Good ") and marker in line:
            return f" ({line.split(marker, 1)[1].strip()})"
    return ""
