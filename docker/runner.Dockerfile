# The runner image of a distributed run on the k6-operator (`k6 x mqbench k8s --image …`):
# the official grafana/k6 image with mqbench's k6 in place of stock k6. That image has what the
# operator needs and docker/Dockerfile (FROM scratch) has not: a shell, since the operator's
# initializer runs `sh -c` around `k6 archive` and `k6 inspect`. Runners, initializer and the
# merge Job all run this one image. The script and the scenario come from the ConfigMap.
#
#   docker build -f docker/runner.Dockerfile --build-arg MQBENCH_VERSION="$(scripts/version.sh)" -t REGISTRY/mqbench-k6:TAG .
#   docker push REGISTRY/mqbench-k6:TAG
#   docker buildx build --platform linux/amd64,linux/arm64 -f docker/runner.Dockerfile -t … --push .
#
# k6 is built here rather than copied from bin/: `make build` links bin/k6 against glibc (cgo
# is on by default), and grafana/k6 is Alpine (musl), where that binary does not start. This
# is the build of docker/Dockerfile (same go.mod and go.sum, same digest-pinned Go image) with
# cgo off; the result is what the k6 docs' custom-image recipe copies in (an xk6 build).
#
# golang:1.26-bookworm = Go 1.26.7 (extensions/go.mod asks for go 1.26.0). The build stage runs
# on the build machine's platform and cross-compiles for the target's.
FROM --platform=$BUILDPLATFORM golang:1.26-bookworm@sha256:38f30937ff0751bd8c202e53556168b9093302ee6d591e7e65a9d1b84a9d360c AS build
ARG TARGETOS TARGETARCH
ENV CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=readonly
WORKDIR /src/extensions
# Modules first, verified against go.sum, so the layer is reused while only code changes.
COPY extensions/go.mod extensions/go.sum ./
RUN go mod download && go mod verify
COPY extensions/ ./
# The version k6 version and summary.json name (no .git in the context: see docker/Dockerfile).
ARG MQBENCH_VERSION=
RUN GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags="-s -w -X github.com/mqbench/xk6-mqbench/internal/version.stamp=${MQBENCH_VERSION}" -o /out/k6 ./cmd/k6

# grafana/k6 2.1.0, the k6 version mqbench is built with (extensions/go.mod): Alpine, sh,
# USER 12345 (the uid the generated pods' securityContext names). The digest is the one
# several public repositories pin for grafana/k6:2.1.0; it was not checked against Docker Hub
# from the machine this was written on (no registry access there): check it with
#   docker buildx imagetools inspect grafana/k6:2.1.0
FROM grafana/k6:2.1.0@sha256:65c920dc067d5e2e00befbf982af6ad6ad0117034e8b1c65817c7975c52d4669
COPY --from=build /out/k6 /usr/bin/k6
# No phoning home, no automatic extension downloads (as bin/k6 and docker/Dockerfile).
ENV K6_NO_USAGE_REPORT=true K6_AUTO_EXTENSION_RESOLUTION=false
# The build fails if this k6 does not start on this base or lacks mqbench's subcommands.
RUN k6 version && k6 x mqbench --help >/dev/null
