#!/usr/bin/env bash
# `docker run` for the runner image on a machine without a container daemon: make test runs
# the CI templates' image path (MQBENCH_RUNTIME=scripts/image/docker.sh) through it. Only the
# form the CI script uses is understood, and becomes scripts/image/run.sh:
#   docker.sh run --rm --network host -v DIR:/work [-e NAME[=VALUE]]… [--entrypoint PROG] IMAGE[:TAG] ARGS…
# -e NAME passes the variable only when it is set here, as docker does. Anything else: exit 125
# (docker's code for its own errors).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
refuse() { echo "docker.sh: $*" >&2; exit 125; }
[[ ${1:-} == run ]] || refuse "only 'run' is understood"
shift
dir="" env="" entrypoint=""
while (($#)); do
  case $1 in
    --rm) shift ;;
    --network) [[ ${2:-} == host ]] || refuse "only --network host"; shift 2 ;;
    -v) [[ ${2:-} == *:/work ]] || refuse "only -v DIR:/work"; dir=${2%:/work}; shift 2 ;;
    -e)
      case ${2:-} in
        *=*) env+="$2"$'\n' ;;
        *) if [[ -n ${!2+set} ]]; then env+="$2=${!2}"$'\n'; fi ;;
      esac
      shift 2 ;;
    --entrypoint) entrypoint=${2:-}; shift 2 ;;
    -*) refuse "option $1 is not understood" ;;
    *) break ;;
  esac
done
image=${1:?docker.sh: no image}
shift
tag=local
[[ $image == *:* ]] && tag=${image##*:}
[[ -n $dir ]] || dir=$PWD
MQBENCH_IMAGE_ENV=$env MQBENCH_IMAGE_ENTRYPOINT=$entrypoint exec "$here/run.sh" "$dir" "$tag" -- "$@"
