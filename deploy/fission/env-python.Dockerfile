# Fission's Python environment (fission/environments python/, pinned as fission-environments in
# deploy/shared/pins.tsv) as its Debian Dockerfile (python/Dockerfile-buster) builds it, with PY_BASE_IMG
# mapped to Debian 12: python:3.11-slim-bookworm stands for Debian's Python 3.11 (imagebuild Bases). Upstream
# installs python3-dev and libev-dev and builds the requirements (bjoern is a C extension on libev) in the
# image it ships; here they are built in a first stage (with gcc, which the slim base lacks) and the final
# image gets the installed packages and libev's runtime library only: the same server and modules, without a
# compiler (one layer of 638 MiB in one stage, measured by deploy/fission/envs.sh). Built by
# deploy/fission/envs.sh from a context that holds the environment's own files.
FROM python:3.11-slim-bookworm AS build
RUN apt-get update -y \
    && apt-get install -y --no-install-recommends python3-dev libev-dev gcc libc6-dev
COPY requirements.txt /app/requirements.txt
RUN pip3 install --no-cache-dir -r /app/requirements.txt

FROM python:3.11-slim-bookworm
RUN apt-get update -y \
    && apt-get install -y --no-install-recommends libev4 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/lib/python3.11/dist-packages /usr/local/lib/python3.11/dist-packages
WORKDIR /app
COPY requirements.txt /app/requirements.txt
COPY server.py /app/server.py
COPY flask_sockets.py /app/flask_sockets.py
COPY socket_tracker.py /app/socket_tracker.py
ENV PYTHONUNBUFFERED=1
ENTRYPOINT ["python3"]
CMD ["server.py"]
