#!/usr/bin/env bash
# `make lint`: gofmt, go vet and staticcheck (pinned in extensions/tools/go.mod, built into
# bin/) on the extension, shellcheck on every script, and go.mod/go.sum tidy in both Go modules.
# Exits non-zero on the first class of problems found, after printing them.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
fail=0
step() { printf '== %s\n' "$*"; }

step "gofmt"
unformatted=$(gofmt -l extensions)
[[ -z $unformatted ]] || { printf 'not gofmt-formatted (gofmt -w):\n%s\n' "$unformatted"; fail=1; }

step "go vet"
(cd extensions && go vet ./...) || fail=1

step "staticcheck (extensions/tools/go.mod)"
(cd extensions/tools && go build -o "$repo/bin/staticcheck" honnef.co/go/tools/cmd/staticcheck)
(cd extensions && "$repo/bin/staticcheck" ./...) || fail=1

step "shellcheck"
command -v shellcheck >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends shellcheck >/dev/null; }
mapfile -t scripts < <(find scripts docker .ci examples -type f \( -name '*.sh' -o -path .ci/run \) | sort)
shellcheck -S warning "${scripts[@]}" || fail=1

step "go mod tidy (every module)"
for m in extensions extensions/tools extensions/tools/xk6 extensions/tools/sbom; do
  before=$(cat "$m/go.mod" "$m/go.sum")
  (cd "$m" && go mod tidy)
  if [[ $before != "$(cat "$m/go.mod" "$m/go.sum")" ]]; then
    echo "lint: $m/go.mod or go.sum was not tidy (go mod tidy changed it; commit the result)" >&2
    fail=1
  fi
done
exit $fail
