"""tdc.fleet.signing against real ssh-keygen keys: every way a signature can
be wrong reads as not verified, with its own reason."""
import os
import subprocess

import pytest

from tdc.fleet import signing


def keypair(directory, name):
    key = os.path.join(directory, name)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key], check=True)
    with open(key + ".pub") as f:
        return key, f.read().strip()


@pytest.fixture
def lab(tmp_path):
    keys = {name: keypair(str(tmp_path), name) for name in ("n7", "n8", "lab", "stranger")}
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(f"n7 {keys['n7'][1]}\n"
                       f"n8 {keys['n8'][1]}\n"
                       f"gpu-*,x? {keys['lab'][1]}\n")
    manifest = tmp_path / "MANIFEST"
    manifest.write_text("0" * 64 + "  context.json\n")
    return keys, str(allowed), str(manifest)


def signed(manifest, key):
    path = signing.sign(manifest, key)
    with open(manifest, "rb") as m, open(path, "rb") as s:
        return m.read(), s.read()


def test_the_hosts_own_key_verifies(lab):
    keys, allowed, manifest = lab
    data, sig = signed(manifest, keys["n7"][0])
    verdict = signing.verify(data, sig, allowed, "n7")
    assert verdict.ok, verdict.reason
    assert verdict.reason.startswith("signed for n7 (ED25519 key SHA256:")


def test_a_lab_key_verifies_for_the_hosts_its_patterns_name(lab):
    keys, allowed, manifest = lab
    data, sig = signed(manifest, keys["lab"][0])
    assert signing.verify(data, sig, allowed, "gpu-17").ok
    assert signing.verify(data, sig, allowed, "xa").ok
    verdict = signing.verify(data, sig, allowed, "n7")
    assert not verdict.ok and "allowed for gpu-*,x?" in verdict.reason


def test_unsigned_is_not_verified(lab):
    _, allowed, manifest = lab
    verdict = signing.verify(open(manifest, "rb").read(), None, allowed, "n7")
    assert not verdict.ok and verdict.reason.startswith("unsigned:")


def test_an_edited_manifest_is_a_bad_signature(lab):
    keys, allowed, manifest = lab
    data, sig = signed(manifest, keys["n7"][0])
    verdict = signing.verify(data.replace(b"0", b"1", 1), sig, allowed, "n7")
    assert not verdict.ok and verdict.reason.startswith("bad signature:")


def test_a_damaged_signature_is_a_bad_signature(lab):
    keys, allowed, manifest = lab
    data, sig = signed(manifest, keys["n7"][0])
    lines = sig.splitlines(keepends=True)
    last = lines[-2]  # the signature's own bytes end the armoured blob
    lines[-2] = last[:10] + (b"B" if last[10:11] != b"B" else b"C") + last[11:]
    verdict = signing.verify(data, b"".join(lines), allowed, "n7")
    assert not verdict.ok and verdict.reason.startswith("bad signature:")


def test_another_nodes_key_does_not_match_the_host(lab):
    """The forged-host case: n8 signs a package that claims to be n7."""
    keys, allowed, manifest = lab
    data, sig = signed(manifest, keys["n8"][0])
    verdict = signing.verify(data, sig, allowed, "n7")
    assert not verdict.ok
    assert verdict.reason.startswith("signer does not match host: signed by a key allowed for n8")
    assert "not for n7" in verdict.reason


def test_a_key_not_in_allowed_signers_is_unknown(lab):
    keys, allowed, manifest = lab
    data, sig = signed(manifest, keys["stranger"][0])
    verdict = signing.verify(data, sig, allowed, "n7")
    assert not verdict.ok and verdict.reason.startswith("unknown signer:")


def test_a_signature_for_another_namespace_does_not_verify(lab):
    keys, allowed, manifest = lab
    data = open(manifest, "rb").read()
    sig = subprocess.run(["ssh-keygen", "-Y", "sign", "-n", "file", "-f", keys["n7"][0]], input=data,
                         capture_output=True, check=True).stdout
    verdict = signing.verify(data, sig, allowed, "n7")
    assert not verdict.ok and verdict.reason.startswith("bad signature:")


def test_no_host_cannot_match(lab):
    keys, allowed, manifest = lab
    data, sig = signed(manifest, keys["n7"][0])
    assert not signing.verify(data, sig, allowed, "").ok


def test_bad_allowed_signers_and_keys_are_refused(tmp_path, lab):
    _, _, manifest = lab
    empty = tmp_path / "empty"
    empty.write_text("# nobody\n")
    with pytest.raises(signing.SigningError, match="lists no signer"):
        signing.check_allowed_signers(str(empty))
    with pytest.raises(signing.SigningError, match="cannot read allowed signers file"):
        signing.check_allowed_signers(str(tmp_path / "missing"))
    with pytest.raises(signing.SigningError, match="no such key file"):
        signing.sign(manifest, str(tmp_path / "missing-key"))
    not_a_key = tmp_path / "not-a-key"
    not_a_key.write_text("hello\n")
    with pytest.raises(signing.SigningError, match="cannot sign with"):
        signing.sign(manifest, str(not_a_key))


@pytest.mark.parametrize("option, why", [
    ('namespaces="file"', 'its namespaces= option leaves out "tdc-package", the namespace packages are signed in'),
    ('namespaces=""', 'its namespaces= option leaves out "tdc-package"'),
    ('valid-before="20200101"', "allows the key only before 2020-01-01T00:00:00 (valid-before=), and this check "
                                "ran at 20"),
    ('valid-after="20990101"', "allows the key only from 2099-01-01T00:00:00 (valid-after=), and this check ran at 20"),
])
def test_a_key_its_options_refuse_says_which_option(lab, tmp_path, option, why):
    """Not "signer does not match host ... for n7, not for n7", nor "unknown
    signer", nor ssh-keygen's "key has expired": the key is fine, the line's
    window has passed (issue 34, finding 12)."""
    keys, _, manifest = lab
    restricted = tmp_path / "restricted_signers"
    restricted.write_text(f"n7 {option} {keys['n7'][1]}\n")
    data, sig = signed(manifest, keys["n7"][0])
    verdict = signing.verify(data, sig, str(restricted), "n7")
    assert not verdict.ok and verdict.reason.startswith(f"signer's key refused by its allowed_signers line: "
                                                        f"{restricted}:1 "), verdict.reason
    assert why in verdict.reason and "\n" not in verdict.reason, verdict.reason
    assert "expired" not in verdict.reason


@pytest.mark.parametrize("option, why", [
    ('valid-before="garbage"', 'invalid "valid-before" time'),
    ('namespaces=file', "missing start quote"),
    ('valid-before="20200101",valid-after="20990101"', '"valid-before" time is before "valid-after"'),
    ('bogus="x"', "unknown key option"),
])
def test_a_line_whose_options_ssh_keygen_cannot_read_is_named(lab, tmp_path, option, why):
    """The key is in the file, on a line ssh-keygen ignores: not "the signing
    key is not in the file" (issue 34, finding 12)."""
    keys, _, manifest = lab
    broken = tmp_path / "broken_signers"
    broken.write_text(f"n8 {keys['n8'][1]}\nn7 {option} {keys['n7'][1]}\n")
    data, sig = signed(manifest, keys["n7"][0])
    verdict = signing.verify(data, sig, str(broken), "n7")
    assert not verdict.ok and verdict.reason.startswith("unknown signer:"), verdict.reason
    assert f"ssh-keygen ignores {broken}:2, a line for n7: bad options: {why}" in verdict.reason, verdict.reason
    assert "is not in" not in verdict.reason and "\n" not in verdict.reason
    # A good line for the host beside it: the ignored one does not matter.
    broken.write_text(f"n7 {option} {keys['n8'][1]}\nn7 {keys['n7'][1]}\n")
    assert signing.verify(data, sig, str(broken), "n7").ok
    # Signed by another host's key: the mismatch, and the ignored line for the host named.
    broken.write_text(f"n8 {keys['n8'][1]}\nn7 {option} {keys['n7'][1]}\n")
    data, sig = signed(manifest, keys["n8"][0])
    verdict = signing.verify(data, sig, str(broken), "n7")
    assert verdict.reason.startswith("signer does not match host: signed by a key allowed for n8"), verdict.reason
    assert f"ssh-keygen ignores {broken}:2, a line for n7" in verdict.reason, verdict.reason


@pytest.mark.parametrize("host", ["n\x007", "n7\nn8", "n7,n8", "", "x" * 300])
def test_a_name_no_host_has_never_reaches_ssh_keygen(lab, host):
    keys, allowed, manifest = lab
    data, sig = signed(manifest, keys["n7"][0])
    verdict = signing.verify(data, sig, allowed, host)
    assert not verdict.ok and "\x00" not in verdict.reason and "\n" not in verdict.reason


def test_an_empty_allowed_signers_name_is_refused():
    with pytest.raises(signing.SigningError, match="--allowed-signers is empty"):
        signing.check_allowed_signers("")
