# Fission's Go builder (fission/environments go/builder/, pinned as fission-environments) as its Dockerfile-1.1x
# builds it with GO_VERSION 1.26: Fission's builder server (/builder, cmd/builder of the pinned fission source,
# built by deploy/fission/envs.sh) and the environment's build.sh as /usr/local/bin/build, in an image with Go:
# here Debian 12 with this machine's Go 1.26 copied to the GOROOT the golang image has (/usr/local/go, the one
# env-go.Dockerfile's server was built from: Go's plugin loader refuses a plugin whose standard library was
# built elsewhere) and gcc (plugins need cgo), GOPATH /usr and GOLANG_VERSION as the golang image sets them
# (build.sh reads it). The builder pod reaches no module proxy: a package builds from what it holds.
FROM golang:1.26-bookworm AS go
FROM debian:bookworm-slim
RUN apt-get update -y && apt-get install -y --no-install-recommends gcc libc6-dev ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=go /usr/local/go /usr/local/go
ENV GOPATH=/usr GO111MODULE=on GOTOOLCHAIN=local GOPROXY=off GOLANG_VERSION=1.26 PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
WORKDIR /usr
COPY builder /builder
COPY build.sh /usr/local/bin/build
