# OpenWhisk's Python 3.11 action runtime (openwhisk-runtime-python core/python311Action, with core/python3Action's bin/
# and lib/ as the runtime's build.gradle copies them, and its requirements), built by deploy/openwhisk/build-runtimes.sh:
# the Go action-loop proxy (openwhisk-runtime-go main/proxy.go, pinned as openwhisk-runtime-go: upstream clones
# its master or a release in the image's first stage) runs bin/compile and lib/launcher.py. Differences from upstream's
# image: Debian's Python 3.11 (imagebuild's python:3.11-slim-bookworm; upstream runs python.org's python:3.11-bookworm),
# so /usr/local/bin/python, which bin/compile's launcher names, is a link to it; the requirements are built in a stage
# with gcc (netifaces has no wheel) and only the installed packages are kept; the proxy is built with this machine's Go.
FROM golang:1.26-bookworm AS proxy
WORKDIR /src
COPY go/ /src/
RUN CGO_ENABLED=0 go build -trimpath -o /out/proxy ./main

FROM python:3.11-slim-bookworm AS build
RUN apt-get update -y \
    && apt-get install -y --no-install-recommends python3-dev gcc libc6-dev
COPY requirements.txt /requirements.txt
RUN pip3 install --no-cache-dir -r /requirements.txt

FROM python:3.11-slim-bookworm
RUN apt-get update -y \
    && apt-get install -y --no-install-recommends zip \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/lib/python3.11/dist-packages /usr/local/lib/python3.11/dist-packages
COPY --from=build /usr/local/bin /usr/local/bin
RUN ln -sf /usr/bin/python3 /usr/local/bin/python && mkdir -p /action
COPY --from=proxy /out/proxy /bin/proxy
COPY bin/compile /bin/compile
COPY lib/launcher.py /lib/launcher.py
ENV OW_LOG_INIT_ERROR=1 OW_WAIT_FOR_ACK=1 OW_EXECUTION_ENV=openwhisk/action-python-v3.11 OW_COMPILER=/bin/compile
ENTRYPOINT ["/bin/proxy"]
