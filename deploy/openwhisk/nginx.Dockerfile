# The nginx in front of OpenWhisk's controller, as openwhisk-deploy-kube runs one (helm/openwhisk/templates/nginx-pod.yaml:
# the image nginx:1.21.1; its configuration: deploy/openwhisk/nginx.conf, from nginx-cm.yaml): Debian bookworm's nginx
# (1.22), built by deploy/openwhisk/build-nginx.sh. Unlike deploy-kube's it runs as an unprivileged user on port 8080
# (the Service maps 80 to it), its pid and temporary files in /tmp.
FROM debian:bookworm-slim
RUN apt-get update -y \
    && apt-get install -y --no-install-recommends nginx \
    && rm -rf /var/lib/apt/lists/*
USER www-data
CMD ["nginx", "-e", "/dev/stderr", "-c", "/etc/openwhisk-nginx/nginx.conf", "-g", "daemon off;"]
