# The real node's pause image (containerd's sandbox_image), built by faasbench's image builder.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
COPY workloads/runtime/go/pause/ workloads/runtime/go/pause/
RUN CGO_ENABLED=0 go build -trimpath -ldflags=-s -o /out/pause ./workloads/runtime/go/pause
FROM scratch
COPY --from=build /out/pause /pause
USER 65535:65535
ENTRYPOINT ["/pause"]
