# OpenWhisk's standalone server as deploy/openwhisk/build.sh builds it (the classpath in lib/, the launcher in bin/),
# on Debian's OpenJDK 17 JRE (imagebuild's eclipse-temurin:17-jre-jammy; upstream's common/scala image runs
# eclipse-temurin:21-jre). docker is deploy/openwhisk/docker-stub.sh: the standalone builds a Docker client at start
# even when the Kubernetes container factory runs the actions (--dev-kcf), and lists its old containers with it.
FROM eclipse-temurin:17-jre-jammy
COPY lib /opt/openwhisk/lib
COPY bin /opt/openwhisk/bin
COPY docker-stub.sh /usr/local/bin/docker
WORKDIR /opt/openwhisk
ENTRYPOINT ["/opt/openwhisk/bin/standalone"]
