# shellcheck shell=bash
# Step timing for `make test` (sourced by scripts/test.sh). `step NAME WHAT...` ends the step
# before it and starts NAME; `steps_report` ends the last one, prints the table and writes it to
# .cache/test-times.tsv. Per step: wall seconds, Go packages compiled (new action entries in
# the Go build cache), megabytes received from outside the machine (every interface but lo),
# and "cold" when the step compiled 50 packages or more or downloaded 1 MB or more.
STEPS_TSV=${STEPS_TSV:-$REPO/.cache/test-times.tsv}
_steps=() _step_name='' _step_t0=0 _step_built0=0 _step_rx0=0 _steps_t0=$SECONDS

# Entries of the Go build cache that record a compile action (their names end in -a).
_go_actions() { find "$(go env GOCACHE)" -name '*-a' -type f 2>/dev/null | wc -l; }
# Bytes received on every network interface but loopback.
_rx_bytes() { awk -F'[: ]+' 'NR > 2 && $2 != "lo" { s += $3 } END { printf "%d\n", s }' /proc/net/dev; }

_step_end() {
	[[ -n $_step_name ]] || return 0
	local secs=$((SECONDS - _step_t0)) built=$(($(_go_actions) - _step_built0))
	local mb=$((($(_rx_bytes) - _step_rx0) / 1048576)) cache=warm
	((built >= 50 || mb >= 1)) && cache=cold
	_steps+=("$_step_name	$secs	$built	$mb	$cache")
	_step_name=''
}

step() {
	_step_end
	printf '\n== %s: %s\n' "$1" "${*:2}"
	_step_name=$1 _step_t0=$SECONDS _step_built0=$(_go_actions) _step_rx0=$(_rx_bytes)
}

steps_report() {
	_step_end
	mkdir -p "$(dirname "$STEPS_TSV")"
	{
		printf 'step\tseconds\tcompiled\tdownloaded_MB\tcache\n'
		printf '%s\n' "${_steps[@]}"
		printf 'total\t%d\t\t\t\n' $((SECONDS - _steps_t0))
	} >"$STEPS_TSV"
	printf '\n== timing (%s)\n' "${STEPS_TSV#"$REPO"/}"
	column -t -s $'\t' "$STEPS_TSV"
}
