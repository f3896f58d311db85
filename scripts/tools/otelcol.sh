#!/usr/bin/env bash
# Builds bin/otelcol: a minimal OpenTelemetry Collector (the OTLP receiver and the debug
# exporter) at a pinned release, to see what k6's opentelemetry output sends
# (docs/web-dashboard.md, its OpenTelemetry section). Skips the build when bin/otelcol is
# already that release. Needs Go. The collector's own go.mod files pin what its modules need
# (minimal version selection from the pinned release is deterministic; checksums are checked).
# Start it with: bin/otelcol --config scripts/tools/otelcol.yaml (listens on 127.0.0.1 only).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
release=0.165.0 # the collector's modules; its confmap providers are v1.71.0 at this release
providers=1.71.0
command -v go >/dev/null || { echo "otelcol: Go is required" >&2; exit 1; }
if [[ -x "$repo/bin/otelcol" ]] && "$repo/bin/otelcol" --version 2>/dev/null | grep -q " $release\$" &&
  "$repo/bin/otelcol" validate --config "$repo/scripts/tools/otelcol.yaml" 2>/dev/null; then
  echo "otelcol: bin/otelcol $release present" >&2
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/main.go" <<'EOF'
// A minimal OpenTelemetry Collector: the OTLP receiver and the debug exporter.
package main

import (
	"log"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

var version = "dev"

func components() (otelcol.Factories, error) {
	f := otelcol.Factories{Telemetry: otelconftelemetry.NewFactory()}
	var err error
	if f.Receivers, err = otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory()); err != nil {
		return f, err
	}
	if f.Exporters, err = otelcol.MakeFactoryMap[exporter.Factory](debugexporter.NewFactory()); err != nil {
		return f, err
	}
	return f, nil
}

func main() {
	set := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "otelcol", Description: "OTLP receiver, debug exporter", Version: version},
		Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{envprovider.NewFactory(), fileprovider.NewFactory()},
				DefaultScheme:     "env",
			},
		},
	}
	if err := otelcol.NewCommand(set).Execute(); err != nil {
		log.Fatal(err)
	}
}
EOF
printf 'module otelcol\n\ngo 1.25\n' >"$work/go.mod"
start=$(date +%s)
mkdir -p "$repo/bin"
(
  cd "$work"
  go get "go.opentelemetry.io/collector/otelcol@v$release" \
    "go.opentelemetry.io/collector/receiver/otlpreceiver@v$release" \
    "go.opentelemetry.io/collector/exporter/debugexporter@v$release" \
    "go.opentelemetry.io/collector/service@v$release" \
    "go.opentelemetry.io/collector/confmap/provider/envprovider@v$providers" \
    "go.opentelemetry.io/collector/confmap/provider/fileprovider@v$providers"
  go mod tidy
  CGO_ENABLED=0 go build -trimpath -ldflags="-X main.version=$release" -o "$repo/bin/otelcol" .
)
echo "otelcol: bin/otelcol $("$repo/bin/otelcol" --version | awk '{print $NF}') ready ($(( $(date +%s) - start ))s)" >&2
