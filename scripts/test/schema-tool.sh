#!/usr/bin/env bash
# Installs check-jsonschema (pinned) into .cache/venv-schema for the test that checks
# schema/scenario.schema.json against the shipped scenarios (internal/schemagen).
# Idempotent: an installed pinned version costs no network call.
set -euo pipefail
version=0.39.0
venv="$(cd "$(dirname "$0")/../.." && pwd)/.cache/venv-schema"
if [[ $("$venv/bin/check-jsonschema" --version 2>/dev/null) == *" $version" ]]; then
	exit 0
fi
python3 -m venv "$venv" 2>/dev/null || {
	apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
	python3 -m venv "$venv"
}
"$venv/bin/pip" install --quiet --disable-pip-version-check "check-jsonschema==$version"
