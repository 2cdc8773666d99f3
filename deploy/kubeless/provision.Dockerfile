# The image of a Kubeless function's "prepare" init container (kubeless-config's provision-image; upstream's
# kubeless/unzip: minideb jessie with unzip, curl and CA certificates): it decodes, checks (sha256sum) and
# unpacks the function's code into the runtime's volume with sh, base64, unzip and tar. Built by
# deploy/kubeless/build.sh on Debian bookworm.
FROM debian:bookworm-slim
RUN apt-get update -y \
    && apt-get install -y --no-install-recommends unzip curl ca-certificates \
    && rm -rf /var/lib/apt/lists/*
