#!/usr/bin/env bash
# deploy/openwhisk/build.sh: builds Apache OpenWhisk's standalone server (controller, in-process invoker, lean
# balancer, in-memory store; core/standalone) from the pinned source (deploy/shared/pins.tsv, through
# deploy/shared/upstream.sh: ../shared/upstream/ or $FAASBENCH_UPSTREAM, else a clone of the commit) in Scala 2.13
# (OpenWhisk's own OW_SCALA_VERSION=2.13 line), without Gradle: upstream builds with Gradle 7.6, whose
# distribution no registry serves, and this machine's registry serves almost none of Pekko's _2.12 modules.
#   1. Maven (Debian's) resolves the classpath only: deploy/openwhisk/pom.xml lists the modules' dependencies with
#      Gradle's picks pinned, deploy/openwhisk/tools.xml the compiler, protoc and Pekko gRPC's code generator; a
#      settings file sends every repository a POM names to the one registry (Maven Central's address).
#   2. The four libraries the registry does not serve are compiled from their pinned source: pekko-connectors-file,
#      scala-kryo-serialization, pekko-kryo-serialization, kamon-statsd.
#   3. The scheduler's gRPC stubs: protoc with Pekko gRPC's generator and ScalaPB's (deploy/openwhisk/ScalaPbPlugin.java).
#   4. scalac 2.13.16 compiles common, scheduler, invoker, controller, admin and standalone in one pass, after
#      deploy/openwhisk/scala213.patch (two Scala 2.13 fixes) and without the S3 attachment store (its SDK is not
#      served); each module's resources go in a jar of their own, as Gradle's do.
# Output, in ${FAASBENCH_CACHE:-/var/cache/faasbench}/openwhisk-<hash of these files and the pins>/ (reused when there):
#   lib/*.jar              the classpath (openwhisk-<module>.jar, the four libraries, the resolved dependencies)
#   bin/standalone         runs org.apache.openwhisk.standalone.StandaloneOpenWhisk on that classpath
#   images/standalone.tar  the same on a JRE (as faasbench's image builder builds it), tagged
#                          ko.local/openwhisk/standalone:<commit> (the name deploy/openwhisk/up.sh runs)
# Maven's downloads are kept in ${FAASBENCH_CACHE}/m2. Prints the build directory last.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
here=deploy/openwhisk
pins=$(grep -E '^(openwhisk|pekko-connectors-file|scala-kryo-serialization|pekko-kryo-serialization|kamon-statsd)	' deploy/shared/pins.tsv)
OW_DIR="$FB_CACHE/openwhisk-$(_fb_hash $here/build.sh $here/pom.xml $here/tools.xml $here/scala213.patch $here/ScalaPbPlugin.java $here/standalone.Dockerfile $here/docker-stub.sh <(echo "$pins"))"
commit=$(awk -F'\t' '$1 == "openwhisk" {print $3}' deploy/shared/pins.tsv)
if [ -f "$OW_DIR/.done" ]; then echo "$OW_DIR"; exit 0; fi
need=()
command -v mvn >/dev/null || need+=(maven)
command -v javac >/dev/null && command -v jar >/dev/null || need+=(openjdk-17-jdk-headless)
command -v patch >/dev/null || need+=(patch)
[ ${#need[@]} -eq 0 ] || deploy/shared/apt-install.sh "${need[@]}" >&2 ||
  { echo "openwhisk-build: could not install ${need[*]} (Debian), which the build needs" >&2; exit 1; }
mkdir -p "$FB_CACHE"
exec 9>"$FB_CACHE/.lock-openwhisk-build"
flock 9
if [ -f "$OW_DIR/.done" ]; then echo "$OW_DIR"; exit 0; fi
start=$(date +%s)
work=$(mktemp -d "$FB_CACHE/.openwhisk-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
phase() { echo "openwhisk-build: $1 ($(( $(date +%s) - start )) s)" >&2; }

# 1. classpaths
cat > "$work/settings.xml" <<EOF
<settings><localRepository>$FB_CACHE/m2</localRepository>
<mirrors><mirror><id>registry</id><mirrorOf>*</mirrorOf><url>${MAVEN_REPO:-https://repo.maven.apache.org/maven2}</url></mirror></mirrors></settings>
EOF
mvn=(mvn -B -q -s "$work/settings.xml")
phase "resolving the classpath with Maven"
"${mvn[@]}" -f $here/pom.xml dependency:build-classpath -Dmdep.outputFile="$work/deps.cp" >"$work/mvn.log" 2>&1 ||
  { tail -20 "$work/mvn.log" >&2; echo "openwhisk-build: Maven could not resolve $here/pom.xml (above)" >&2; exit 1; }
"${mvn[@]}" -f $here/tools.xml dependency:copy-dependencies -DoutputDirectory="$work/tools" >"$work/mvn.log" 2>&1 ||
  { tail -20 "$work/mvn.log" >&2; echo "openwhisk-build: Maven could not resolve $here/tools.xml (above)" >&2; exit 1; }
T=$work/tools
protoc=$T/protoc-3.25.5-linux-x86_64.exe
codegen=$T/pekko-grpc-codegen_2.12-1.1.1-assembly.jar
chmod +x "$protoc" "$codegen"
scalac_cp=$(ls "$T"/scala-compiler-*.jar "$T"/scala-library-*.jar "$T"/scala-reflect-*.jar "$T"/jline-*.jar "$T"/java-diff-utils-*.jar | paste -sd:)
cp=$(cat "$work/deps.cp")

# scalac OUT CLASSPATH DIR...: compiles the Scala and Java sources under each DIR into OUT (Java after Scala, as
# Gradle's Scala plugin does for mixed sources), with the options in $SCALAC_FLAGS added (each project's own).
scalac() {
  local out=$1 classpath=$2 srcs
  shift 2
  mkdir -p "$out"
  srcs=$(mktemp "$work/srcs.XXXXXX")
  find "$@" \( -name '*.scala' -o -name '*.java' \) -type f | sort > "$srcs"
  java -Xss8m -Xmx4g -cp "$scalac_cp" scala.tools.nsc.Main -nowarn -release 17 ${SCALAC_FLAGS:-} -classpath "$classpath" -d "$out" "@$srcs" >&2
  if grep -q '\.java$' "$srcs"; then
    grep '\.java$' "$srcs" > "$srcs.java"
    javac -nowarn -proc:none --release 17 -cp "$out:$classpath" -d "$out" "@$srcs.java" 2>&1 | grep -v '^Note:' >&2 || true
    [ "${PIPESTATUS[0]}" = 0 ] || { echo "openwhisk-build: javac failed for $*" >&2; return 1; }
  fi
}
# pack JAR CLASSES [RESOURCES...]: a jar of CLASSES (may be empty) and each RESOURCES directory's files.
pack() {
  local jarfile=$1 classes=$2 r
  shift 2
  mkdir -p "$classes"
  jar --create --file "$jarfile" -C "$classes" .
  for r in "$@"; do [ -d "$r" ] && jar --update --file "$jarfile" -C "$r" .; done
  return 0
}
mkdir -p "$work/lib"

# 2. the libraries the registry does not serve
phase "compiling pekko-connectors-file, scala-kryo-serialization, pekko-kryo-serialization, kamon-statsd"
s=$(deploy/shared/upstream.sh pekko-connectors-file)
scalac "$work/c/connectors-file" "$cp" "$s/file/src/main/scala" "$s/file/src/main/java"
pack "$work/lib/pekko-connectors-file_2.13-1.1.0.jar" "$work/c/connectors-file" "$s/file/src/main/resources"
s=$(deploy/shared/upstream.sh scala-kryo-serialization)
SCALAC_FLAGS=-Xsource:3 scalac "$work/c/scala-kryo" "$cp" "$s/core/src/main/scala" "$s/core/src/main/scala-2.13"
pack "$work/lib/scala-kryo-serialization_2.13-1.3.0.jar" "$work/c/scala-kryo" "$s/core/src/main/resources"
s=$(deploy/shared/upstream.sh pekko-kryo-serialization)
SCALAC_FLAGS=-Xsource:3 scalac "$work/c/pekko-kryo" "$cp:$work/c/scala-kryo" "$s/pekko-kryo-serialization/src/main/scala"
pack "$work/lib/pekko-kryo-serialization_2.13-1.3.0.jar" "$work/c/pekko-kryo" "$s/pekko-kryo-serialization/src/main/resources"
s=$(deploy/shared/upstream.sh kamon-statsd)
scalac "$work/c/kamon-statsd" "$cp" "$s/reporters/kamon-statsd/src/main/scala"
pack "$work/lib/kamon-statsd_2.13-2.1.4.jar" "$work/c/kamon-statsd" "$s/reporters/kamon-statsd/src/main/resources"
libs=$(ls "$work"/lib/*.jar | paste -sd:)

# 3. OpenWhisk's source, patched, and the scheduler's gRPC stubs
src=$work/openwhisk
cp -r "$(deploy/shared/upstream.sh openwhisk)" "$src"
patch -d "$src" -p1 --fuzz=0 --quiet < $here/scala213.patch
rm -r "$src/common/scala/src/main/scala/org/apache/openwhisk/core/database/s3"
phase "generating the scheduler's gRPC stubs"
mkdir -p "$work/plugin" "$work/proto" "$work/gen"
javac -d "$work/plugin" $here/ScalaPbPlugin.java
printf '#!/bin/sh\nexec java -cp %s:%s ScalaPbPlugin\n' "$work/plugin" "$codegen" > "$work/plugin/protoc-gen-scala"
chmod +x "$work/plugin/protoc-gen-scala"
pbjar=$(tr ':' '\n' <<<"$cp" | grep '/protobuf-java-[0-9.]*\.jar$' | head -1)
(cd "$work/proto" && jar --extract --file "$pbjar" google/protobuf)
"$protoc" -I"$src/core/scheduler/src/main/protobuf" -I"$work/proto" \
  --plugin=protoc-gen-scala="$work/plugin/protoc-gen-scala" --scala_out=flat_package:"$work/gen" \
  --plugin=protoc-gen-pekkogrpc="$codegen" \
  --pekkogrpc_out=language=Scala,generate_client=true,generate_server=true,server_power_apis=false,use_play_actions=false,flat_package:"$work/gen" \
  "$src"/core/scheduler/src/main/protobuf/*.proto

# 4. OpenWhisk
modules=(common/scala core/scheduler core/invoker core/controller tools/admin core/standalone)
dirs=("$work/gen")
for m in "${modules[@]}"; do dirs+=("$src/$m/src/main/scala"); done
phase "compiling OpenWhisk's ${modules[*]} (scalac 2.13.16, one pass)"
scalac "$work/c/openwhisk" "$cp:$libs" "${dirs[@]}"
pack "$work/lib/openwhisk-classes.jar" "$work/c/openwhisk"
for m in "${modules[@]}"; do
  name=openwhisk-${m##*/}
  [ "$m" = common/scala ] && name=openwhisk-common
  pack "$work/lib/$name.jar" "$work/empty" "$src/$m/src/main/resources"
done
cp "$src/ansible/files/runtimes.json" "$work/lib/runtimes.json"
tr ':' '\n' <<<"$cp" | while read -r j; do cp "$j" "$work/lib/"; done

# the launcher and the image
mkdir -p "$work/out/bin" "$work/out/images"
mv "$work/lib" "$work/out/lib"
cat > "$work/out/bin/standalone" <<'EOF'
#!/bin/sh
# OpenWhisk's standalone server (built by deploy/openwhisk/build.sh); arguments go to StandaloneOpenWhisk.
lib=$(cd "$(dirname "$0")/../lib" && pwd)
exec java ${OW_JAVA_OPTS:-} -cp "$lib/*" org.apache.openwhisk.standalone.StandaloneOpenWhisk "$@"
EOF
chmod +x "$work/out/bin/standalone"
phase "the standalone image"
[ -x bin/faasbench ] || CGO_ENABLED=0 go build -o bin/faasbench ./cmd/faasbench
mkdir -p "$work/ctx"
cp -r "$work/out/lib" "$work/out/bin" "$work/ctx/"
cp $here/standalone.Dockerfile "$work/ctx/Dockerfile"
cp $here/docker-stub.sh "$work/ctx/docker-stub.sh"
bin/faasbench image build "$work/ctx/Dockerfile" --context "$work/ctx" -t "ko.local/openwhisk/standalone:${commit:0:12}" \
  -O "$work/out/images/standalone.tar" > "$work/image.log" 2>&1 ||
  { tail -20 "$work/image.log" >&2; echo "openwhisk-build: the standalone image failed (above)" >&2; exit 1; }
rm -rf "$OW_DIR"
mv "$work/out" "$OW_DIR"
touch "$OW_DIR/.done"
echo "==> openwhisk-build: $(( $(date +%s) - start )) s" >&2
echo "$OW_DIR"
