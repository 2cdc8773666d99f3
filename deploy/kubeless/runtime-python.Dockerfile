# Kubeless's Python runtime of 2019 (kubeless-runtimes c30c833, stable/python/Dockerfile.3.7: kubeless.py on bottle
# and CherryPy's WSGI server, each call run in a process forked for it), built by deploy/kubeless/build.sh.
# Differences from upstream's image, each because the 2019 one cannot run on Python 3.11 (upstream: Bitnami's
# Python 3.7.1 on minideb stretch): Debian's Python 3.11 (imagebuild's python:3.11-slim-bookworm); bottle 0.12.25
# for 0.12.13 (0.12.13 imports collections.MutableMapping, gone in 3.10); CherryPy 8.9.1 as pinned, with
# inspect.getargspec (gone in 3.11, read once when CherryPy loads) given back by a .pth line
# (deploy/kubeless/getargspec.pth); prometheus_client and wsgi-request-logger, unpinned upstream, pinned to their
# 2019 releases. kubeless.py is upstream's, unchanged.
FROM python:3.11-slim-bookworm
COPY requirements.txt /tmp/requirements.txt
RUN pip3 install --no-cache-dir -r /tmp/requirements.txt && rm /tmp/requirements.txt
COPY getargspec.pth /usr/local/lib/python3.11/dist-packages/faasbench-getargspec.pth
WORKDIR /
COPY kubeless.py /kubeless.py
USER 1000
CMD ["python", "/kubeless.py"]
