#!/usr/bin/env bash
# Every Go fuzz target of the extension (func Fuzz… in a *_test.go), one at a time, for
# FUZZTIME each: `scripts/fuzz.sh` (10s each), `scripts/fuzz.sh 60s`, FUZZTIME=5m, or a count of
# calls (`scripts/fuzz.sh 5000x`: no deadline for Go's coordinator to race, as make test runs it).
# Minimizing a failing input is bounded (FUZZMINIMIZETIME, 5s: the parser's fuzz run once spent
# 60 s minimizing one input); FUZZPARALLEL workers (1: the machine is shared). A failure leaves
# its input in the package's testdata/fuzz/<target>/, a seed every later go test replays.
set -euo pipefail
cd "$(dirname "$0")/../extensions"
fuzztime=${1:-${FUZZTIME:-10s}}
minimize=${FUZZMINIMIZETIME:-5s}
parallel=${FUZZPARALLEL:-1}
failed=()
mapfile -t pkgs < <(grep -rl --include='*_test.go' '^func Fuzz' internal | xargs -n1 dirname | sort -u)
for pkg in "${pkgs[@]}"; do
	for target in $(grep -h -o '^func Fuzz[A-Za-z0-9_]*' "$pkg"/*_test.go | cut -d' ' -f2 | sort); do
		echo "== ./$pkg $target for $fuzztime"
		if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" \
			-parallel "$parallel" "./$pkg"; then
			failed+=("./$pkg $target")
		fi
	done
done
if ((${#failed[@]})); then
	printf 'fuzz: FAILED %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "fuzz: every target passed ($fuzztime each)"
