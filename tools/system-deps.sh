#!/usr/bin/env bash
# The operating-system packages the test suite needs beside .venv, installed in one serial step.
#
# `make test` runs this before pytest. It is idempotent: what is already there is reported and
# left alone; what is missing is installed with one `apt-get update` and one `apt-get install`
# (as root, on Debian/Ubuntu), waiting for the package manager's lock while another apt or dpkg
# holds it (apt-get update does not wait by itself). Every line it prints starts with
# "system-deps:", so the make log says what was found and what this step installed.
#
# When a package cannot be installed: under CI=true this exits 1 (the suite would only fail
# later, test by test, for the same reason); otherwise it says which tests will skip and how
# to install the package, and exits 0.
#
# SYSTEM_DEPS_LOCK_WAIT: seconds to wait for the package manager's lock (default 900).
set -u

# The checks that say a need is met.
has_twig() { perl -MXML::Twig -e1; }
has_chromium() { command -v chromium || command -v chromium-browser; }
has_gxx() { command -v g++; }
has_java() { command -v java; }

# Each need: its check | the Debian package | what needs it.
NEEDS=(
  "has_twig|libxml-twig-perl|XML::Twig, loaded by mteval-v13a.pl (tests/test_oracle_moses.py)"
  "has_chromium|chromium|headless Chromium for the HTML report (tests/test_report_browser.py)"
  "has_gxx|g++|the C++ compiler that builds fairseq's libbleu (tests/test_profile_scripts.py)"
  "has_java|default-jre-headless|Java for pycocoevalcap's PTB tokenizer (tests/test_adapters.py)"
)

say() { echo "system-deps: $*"; }
met() { "$1" >/dev/null 2>&1; }
ci() { [ "${CI:-}" = "true" ]; }

missing=()
for need in "${NEEDS[@]}"; do
  IFS='|' read -r test pkg why <<<"$need"
  if met "$test"; then
    say "present   $pkg — $why"
  else
    missing+=("$need")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

pkgs=()
for need in "${missing[@]}"; do
  IFS='|' read -r _ pkg why <<<"$need"
  pkgs+=("$pkg")
  say "missing   $pkg — $why"
done

fail() {
  if ci; then
    say "ERROR: $1"
    say "CI=true: the tests that need ${pkgs[*]} would fail; stopping here instead."
    exit 1
  fi
  say "NOTE: $1"
  say "the tests that need them skip (and fail under CI=true)."
  exit 0
}

if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
  fail "cannot install ${pkgs[*]} here (needs root and apt-get); install them with: apt-get install -y ${pkgs[*]}"
fi

# Our own runs take turns (two `make test` at once); other package managers are waited for below.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${TMPDIR:-/tmp}/bleu-harness-system-deps.lock"
  flock 9
fi

# apt-get "$@", retried while another apt or dpkg holds its lock; its output only on failure.
apt_waiting() {
  local deadline=$((SECONDS + ${SYSTEM_DEPS_LOCK_WAIT:-900})) out rc said=""
  while :; do
    out=$(DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=60 "$@" 2>&1)
    rc=$?
    [ $rc -eq 0 ] && return 0
    if grep -q -e "Could not get lock" -e "Unable to lock" -e "Unable to acquire" <<<"$out" &&
       [ $SECONDS -lt $deadline ]; then
      if [ -z "$said" ]; then
        say "waiting for the package manager's lock: $(grep -m1 -e 'held by' -e 'Could not get lock' <<<"$out")"
        said=1
      fi
      sleep 3
      continue
    fi
    printf '%s\n' "$out" | tail -20 | sed 's/^/system-deps:   /'
    return $rc
  done
}

say "installing ${pkgs[*]} (apt-get update, then one apt-get install)"
apt_waiting update -qq || fail "apt-get update failed (above)"
apt_waiting install -y -qq "${pkgs[@]}" || fail "apt-get install ${pkgs[*]} failed (above)"

still=()
for need in "${missing[@]}"; do
  IFS='|' read -r test pkg why <<<"$need"
  if met "$test"; then
    say "installed $pkg $(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) — $why"
  else
    still+=("$pkg")
  fi
done
[ ${#still[@]} -eq 0 ] || fail "installed, but still not usable: ${still[*]}"
exit 0
