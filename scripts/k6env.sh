# shellcheck shell=bash
# Sourced by the scripts that run bin/k6: no phoning home, no automatic extension downloads.
export K6_NO_USAGE_REPORT=true
export K6_AUTO_EXTENSION_RESOLUTION=false
