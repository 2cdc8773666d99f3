# Fission's Go environment (fission/environments go/, pinned as fission-environments in deploy/shared/pins.tsv)
# as its Dockerfile-1.1x builds it with GO_VERSION 1.26: server.go (the dynamic loader: it opens the function's
# Go plugin at /v2/specialize) built in a golang:1.26 stage, which is this machine's Go 1.26 here (imagebuild
# Bases), on a Debian 12 base with ca-certificates (upstream's is ubuntu:22.04). A function's plugin must be built
# by the same Go release from the same GOROOT (/usr/local/go, as in the golang image), which the Go builder image
# (builder-go.Dockerfile) carries. Built by deploy/fission/envs.sh from a context that holds go/'s own files.
FROM golang:1.26-bookworm AS builder
ENV GOPATH=/usr
WORKDIR /usr/src/github.com/fission/fission/environments/go
COPY server.go ./
RUN go mod init && go mod tidy && go build -a -o /server server.go
FROM debian:bookworm-slim
RUN apt-get update -y && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=builder /server /server
EXPOSE 8888
ENTRYPOINT ["/server"]
