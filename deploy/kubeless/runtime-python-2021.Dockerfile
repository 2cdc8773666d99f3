# Kubeless's Python runtime of 2021 (kubeless-runtimes 325e024, stable/python/Dockerfile.3.8: _kubeless.py on bottle and
# CherryPy's WSGI server, each call run in a process that multiprocessing's forkserver forks for it: the server
# process, started before the first request with the function's module preloaded, is single-threaded, where the 2019
# runtime forks the multithreaded CherryPy process itself), built by deploy/kubeless/build.sh. An option beside the
# 2019 runtime that seed 003 measured (runtime pythonfs3.11: deploy/kubeless/runtimes.yaml).
# Differences from upstream's image, each because it cannot run on Python 3.11 or is not reachable here (upstream:
# Bitnami's Python 3.8.6 on minideb stretch): Debian's Python 3.11 (imagebuild's python:3.11-slim-bookworm); bottle
# 0.12.25 for 0.12.13 (0.12.13 imports collections.MutableMapping, gone in 3.10); CherryPy 8.9.1 as pinned, with
# inspect.getargspec given back by a .pth line (deploy/kubeless/getargspec.pth); prometheus_client and
# wsgi-request-logger, unpinned upstream, pinned to their releases of the commit's time (runtime-python-2021.txt).
# _kubeless.py is upstream's, unchanged.
FROM python:3.11-slim-bookworm
COPY requirements.txt /tmp/requirements.txt
RUN pip3 install --no-cache-dir -r /tmp/requirements.txt && rm /tmp/requirements.txt
COPY getargspec.pth /usr/local/lib/python3.11/dist-packages/faasbench-getargspec.pth
WORKDIR /
COPY _kubeless.py /_kubeless.py
USER 1000
ENV PYTHONUNBUFFERED=1
CMD ["python", "/_kubeless.py"]
