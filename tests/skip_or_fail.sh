# Sourced by the shell test drivers: `skip_or_fail "why"` exits 77 (ctest:
# skipped) when a prerequisite is missing, or 1 when $CI is set, because CI
# must run every test.
skip_or_fail() {
  if [ -n "${CI:-}" ]; then
    echo "FAIL: $1 (CI is set, so this test must run)"
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}
