#!/bin/sh
# deploy/openwhisk/docker-stub.sh: the `docker` of the OpenWhisk standalone image. With --dev-kcf the actions run as
# Kubernetes pods and no Docker engine is there; the standalone still lists the containers it launched before
# (docker ps) at start. That list is empty; anything else is refused, by name, so that a path that would need
# Docker fails loudly instead of silently.
case "$1" in
ps) exit 0 ;;
version) echo "0.0.0-faasbench-stub"; exit 0 ;; # docker version --format {{.Client.Version}}: the client checks it runs
*) echo "docker $1: this image has no Docker engine (deploy/openwhisk/docker-stub.sh): OpenWhisk runs actions as Kubernetes pods here" >&2; exit 1 ;;
esac
