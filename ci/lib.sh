# Shared by the ci/ scripts: idempotent provisioning and the build step.
# Source it; every function is safe to call again on a provisioned machine.

TDC_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TDC_CACHE="${TDC_CACHE:-$HOME/.cache/tdc}"
TDC_JOBS="${TDC_JOBS:-$(nproc)}"

# TDC_QUIET=1 (the scripts' --quiet): no progress lines, only results and errors.
tdc_log() { [ -n "${TDC_QUIET:-}" ] || printf '\n==> %s\n' "$*" >&2; }
tdc_die() { printf 'tdc: %s\n' "$*" >&2; exit 2; }

# The Python tools (ci/tdc): tdc_tool VERB, tdc_python COMMAND (ci/tools.sh).
# Not through bin/tdc: ci/health runs with a PATH that may lack what
# bin/tdc needs (readlink; health_fails_closed).
source "$TDC_ROOT/ci/tools.sh"

# Debian packages, installed only when missing; apt-get update runs at most once.
# TDC_NO_PROVISION=1: install nothing (a host that has what it needs); a
# missing package is then one line naming it. As non-root, `sudo -n`: it
# fails at once instead of waiting for a password in CI.
tdc_apt_install() {
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ -z "${TDC_NO_PROVISION:-}" ] ||
    tdc_die "missing packages (${missing[*]}) and TDC_NO_PROVISION is set: install them, or unset it"
  command -v apt-get >/dev/null || tdc_die "missing packages (${missing[*]}) and no apt-get: see README, 'Offline hosts'"
  tdc_log "installing ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || tdc_die "missing packages (${missing[*]}): not root and no sudo (TDC_NO_PROVISION=1 skips provisioning)"
    sudo="sudo -n"
  fi
  if [ -z "${TDC_APT_UPDATED:-}" ]; then
    $sudo apt-get update -qq || tdc_die "apt-get update failed"
    TDC_APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null ||
    tdc_die "apt-get install ${missing[*]} failed"
}

# Toolchain and test dependencies, unless an offline bundle provides them.
tdc_provision_build_tools() {
  if [ -n "${TDC_DEPS_PREFIX:-}" ]; then
    [ -d "$TDC_DEPS_PREFIX/usr" ] || tdc_die "TDC_DEPS_PREFIX='$TDC_DEPS_PREFIX' has no usr/ (see ci/offline-bundle)"
    return 0
  fi
  # ccache and mold only make builds faster (cmake/TdcBuildSpeed.cmake): a
  # build without them is the same build.
  tdc_apt_install cmake ninja-build g++ python3 python3-venv libgtest-dev libbenchmark-dev libbenchmark-tools \
    nlohmann-json3-dev ccache mold libgloo-dev
}

# What the Python self-tests run with (Debian's /usr/bin/python3): pytest
# for the units of ci/tdc, jsonschema to validate real outputs against
# ci/tdc/schemas, junitparser as a third-party JUnit reader.
tdc_provision_selftest_tools() {
  [ -n "${TDC_DEPS_PREFIX:-}" ] && return 0
  tdc_apt_install python3-pytest python3-jsonschema python3-junitparser
}

# A venv holding exactly torch==$1; prints LibTorch's CMake prefix path.
tdc_torch_venv() {
  local version="$1" venv="$TDC_CACHE/venv-torch-$1"
  if ! "$venv/bin/python" -c "import torch,sys; sys.exit(torch.__version__.split('+')[0] != '$version')" 2>/dev/null; then
    tdc_log "installing torch==$version into $venv"
    python3 -m venv "$venv" || tdc_die "cannot create a venv at $venv"
    "$venv/bin/pip" install -q "torch==$version" >&2 || tdc_die "pip install torch==$version failed"
  fi
  "$venv/bin/python" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null
}

# Refuses a --torch value before anything is provisioned or built: a path
# must be a LibTorch CMake prefix, or CMake would quietly find another one.
tdc_check_torch_arg() {
  case "$1" in
    system|python|[0-9]*.*) ;;
    /*) [ -d "$1" ] || tdc_die "--torch='$1': no such directory"
        [ -n "$(find "$1" -maxdepth 6 -name TorchConfig.cmake -print -quit 2>/dev/null)" ] ||
          tdc_die "--torch='$1': not a LibTorch CMake prefix (no TorchConfig.cmake under it)" ;;
    *) tdc_die "--torch='$1': expected a version (2.13.0), 'system', 'python' or a CMake prefix path" ;;
  esac
}

# The CMake prefix of the LibTorch named by $1:
#   a version (2.13.0)  pip's torch in a venv under $TDC_CACHE
#   system              Debian's libtorch-dev (found by CMake's default search)
#   python              the torch of the first python3 on PATH (offline GPU hosts)
#   /some/path          an existing LibTorch CMake prefix
tdc_torch_prefix() {
  case "$1" in
    system) tdc_apt_install libtorch-dev; echo "" ;;
    # python's own traceback would bury the one line that says what to do.
    python) python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null ||
              tdc_die "--torch=python: $(command -v python3 || echo python3) cannot import torch: give a pip version (--torch=2.13.0, installed in a venv under ~/.cache/tdc), --torch=system (Debian's libtorch-dev) or a LibTorch prefix path (--torch=/path/to/libtorch)" ;;
    /*) tdc_check_torch_arg "$1"; echo "$1" ;;
    [0-9]*.*) tdc_torch_venv "$1" ;;
    *) tdc_die "--torch='$1': expected a version (2.13.0), 'system', 'python' or a CMake prefix path" ;;
  esac
}

# Configures and builds the project into $1 against the LibTorch prefix $2.
tdc_build() {
  local build_dir="$1" prefix="$2"; shift 2
  local args=(-S "$TDC_ROOT" -B "$build_dir" -GNinja -DCMAKE_BUILD_TYPE=Release)
  local prefixes="$prefix"
  [ -n "${TDC_DEPS_PREFIX:-}" ] && prefixes="$prefixes;$TDC_DEPS_PREFIX/usr"
  [ -n "$prefixes" ] && args+=("-DCMAKE_PREFIX_PATH=${prefixes#;}")
  if command -v ccache >/dev/null && [ -z "${TDC_NO_CCACHE:-}" ]; then
    args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    # Hits across clones (CI builds a fresh clone) and with precompiled headers.
    export CCACHE_BASEDIR="$TDC_ROOT"
    export CCACHE_SLOPPINESS="pch_defines,time_macros,include_file_mtime,include_file_ctime"
  fi
  # A bundled ninja built for another glibc may exist and not run.
  ninja --version >/dev/null 2>&1 || args=("${args[@]/-GNinja/}")
  tdc_log "configuring $build_dir"
  mkdir -p "$build_dir"
  cmake "${args[@]}" "$@" >"$build_dir/configure.log" 2>&1 || {
    tail -40 "$build_dir/configure.log" >&2; tdc_die "configure failed (log: $build_dir/configure.log)"; }
  tdc_log "building $build_dir"
  local started=$SECONDS
  if [ -n "${TDC_QUIET:-}" ]; then
    cmake --build "$build_dir" -j "$TDC_JOBS" >"$build_dir/build.log" 2>&1 || {
      tail -40 "$build_dir/build.log" >&2; tdc_die "build failed in $build_dir (log: $build_dir/build.log)"; }
  else
    cmake --build "$build_dir" -j "$TDC_JOBS" || tdc_die "build failed in $build_dir"
  fi
  tdc_log "built $build_dir in $((SECONDS - started)) s"
}

# What ci/merge, tdc report and their self-tests need, from Debian: templates
# (jinja2), charts (matplotlib), the readers and validators the tests use on
# our output (junitparser, jsonschema, yaml), the browser the report test
# drives (chromium, its driver, selenium) and ssh-keygen for signatures.
tdc_provision_report_tools() {
  [ -n "${TDC_DEPS_PREFIX:-}" ] && return 0
  tdc_apt_install python3-pytest python3-jinja2 python3-matplotlib python3-jsonschema python3-junitparser \
    python3-yaml python3-selenium chromium chromium-driver openssh-client
}

# The after-run tail of ci/conformance and ci/offline-run, written once: the
# benchmarks (unless bench=off), the qualification gate (level 3), the run's
# report.html, what the run left, and its last line. It reads the caller's
# build_dir, results, level, bench, status and failed_steps (and verdict_file
# where there is one) and exits with the run's status: a failed step turns a
# pass into a failure (1); the report never changes the verdict.
tdc_after_run() {
  local python=python3 quick=() quiet=() bench_status=0 made=() entry
  local -  # the options below are the function's own
  set -o pipefail
  [ -n "${TDC_QUIET:-}" ] && quiet=(--quiet)
  # The plot and the report want matplotlib and jinja2: Debian's, for
  # Debian's python, where this host provisions (ci/conformance installs
  # them first); an offline bundle's python3 or a TDC_NO_PROVISION host may
  # lack them: plot.log and the report's one line say so, and every result
  # is kept.
  if [ -z "${TDC_DEPS_PREFIX:-}" ]; then
    python=/usr/bin/python3
  fi
  if [ "$bench" != off ]; then
    tdc_log "benchmarks ($bench)"
    [ "$bench" = quick ] && quick=(--quick)
    # Level 3 adds the collectives' bandwidth sweep (tdc_bench_collectives).
    [ "$level" = 3 ] && quick+=(--with-collectives)
    # Kept in results/bench.log; unless quiet, also shown as it runs, through
    # a pipe, never by reopening /dev/stdout: that truncates the regular file
    # `ci/conformance > run.log 2>&1` (Slurm, cron, nohup) writes, and the
    # seed's lines and the device table became NUL bytes.
    if [ -n "${TDC_QUIET:-}" ]; then
      tdc_tool run-benchmarks --build-dir "$build_dir" --out "$results/bench" "${quick[@]}" \
        --with-loopback --plot-python "$python" >"$results/bench.log" || bench_status=1
    else
      tdc_tool run-benchmarks --build-dir "$build_dir" --out "$results/bench" "${quick[@]}" \
        --with-loopback --plot-python "$python" 2>&1 | tee "$results/bench.log" || bench_status=1
    fi
    if [ "$bench_status" -ne 0 ]; then
      failed_steps+=(--failed-step "the benchmarks ($results/bench.log)")
    fi
  fi
  if [ "$level" = 3 ]; then
    tdc_log "qualification gate: every benchmark has its device's thresholds"
    tdc_tool qualification-gate --bench-dir "$results/bench" ||
      failed_steps+=(--failed-step "the qualification gate")
  fi
  if [ "${#failed_steps[@]}" -gt 0 ] && [ "$status" -eq 0 ]; then
    status=1
  fi
  # The last step, after the benchmarks it charts: results/report.html, by
  # tdc.pipeline.write_report (what tdc report calls), or one line saying why
  # there is none.
  tdc_log "report"
  tdc_python "$python" -m tdc run-report --results "$results" \
    "${quiet[@]}" >&2 || true
  for entry in junit.xml summary.json context.json report.html gtest bench; do
    [ -e "$results/$entry" ] && made+=("$entry")
  done
  echo "results in $results (${made[*]})" >&2
  # The last line is the run's verdict, and whether its package would verify.
  tdc_tool last-line --results "$results" --level "$level" --status "$status" "${failed_steps[@]}" \
    ${verdict_file:+--verdict "$verdict_file"} || true
  exit "$status"
}
