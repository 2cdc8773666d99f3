# Kubeless's function controller (cmd/function-controller, patched: deploy/kubeless/kubeless.patch) as its
# docker/function-controller/Dockerfile runs it, on distroless/static for minideb jessie (the binary is static).
# Built by deploy/kubeless/build.sh.
FROM gcr.io/distroless/static-debian12:nonroot
COPY kubeless-function-controller /kubeless-function-controller
ENTRYPOINT ["/kubeless-function-controller"]
