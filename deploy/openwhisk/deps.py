#!/usr/bin/env python3
"""deploy/openwhisk/deps.py [SCALA...]: can OpenWhisk's controller, invoker, scheduler and standalone server be had from
the Maven registry this machine reaches? (issue 41's time-boxed investigation: upstream builds them with Gradle 7.6,
whose distribution cannot be fetched here.)

Reads the pinned OpenWhisk source (deploy/shared/upstream.sh openwhisk), takes every external dependency that the Gradle
builds of common/scala, core/controller, core/invoker, core/scheduler, core/standalone and tools/admin declare, with
the versions settings.gradle gives (Scala 2.12 by default, 2.13 with OW_SCALA_VERSION: both unless SCALA names
one), and asks the registry for each artifact's POM. Prints one line per artifact, group, artifact, version, the
registry's HTTP status (for a refused one, the last versions the registry lists), then a count per Scala line. Reads from the registry only (MAVEN_REPO, default Maven
Central's URL, which this machine's proxy answers); builds nothing.
"""

import os
import re
import subprocess
import sys
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPO = os.environ.get("MAVEN_REPO", "https://repo.maven.apache.org/maven2").rstrip("/")
MODULES = ["common/scala", "core/controller", "core/invoker", "core/scheduler", "core/standalone", "tools/admin"]
SCALA = {"2.12": "2.12.10", "2.13": "2.13.1"}  # settings.gradle's scala.version per line


def versions(src: str, line: str) -> dict[str, str]:
    """settings.gradle's gradle.ext values (pekko.version, netty.version, ...) and the Scala line's."""
    text = open(os.path.join(src, "settings.gradle")).read()
    out = {"scala.version": SCALA[line], "scala.depVersion": line}
    for name, ver in re.findall(r"gradle\.ext\.([a-z_]+)\s*=\s*\[\s*version\s*:\s*'([^']+)'", text):
        out[name + ".version"] = ver
    return out


def deps(src: str, line: str) -> list[tuple[str, str, str]]:
    vs = versions(src, line)
    found = set()
    for m in MODULES:
        for raw in open(os.path.join(src, m, "build.gradle")):
            s = raw.strip()
            if s.startswith("//"):
                continue
            d = re.search(r'(?:api|implementation)\s*\(?\s*"([^"]+)"', s)
            if not d:
                continue
            coord = re.sub(r"\$\{gradle\.([A-Za-z_.]+)\}", lambda x: vs.get(x.group(1), "?"), d.group(1)).split(":")
            if len(coord) >= 3 and "?" not in coord[2]:
                found.add(tuple(coord[:3]))
    return sorted(found)


def status(g: str, a: str, v: str) -> int:
    url = f"{REPO}/{g.replace('.', '/')}/{a}/{v}/{a}-{v}.pom"
    req = urllib.request.Request(url, method="HEAD")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def served_versions(g: str, a: str) -> str:
    """The versions the registry lists for an artifact (its maven-metadata.xml), newest last; "none" when it
    lists none. A listed version may still be refused: the registry serves a part of Maven Central."""
    url = f"{REPO}/{g.replace('.', '/')}/{a}/maven-metadata.xml"
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            vs = re.findall(r"<version>([^<]+)</version>", r.read().decode())
    except urllib.error.HTTPError as e:
        return f"none (maven-metadata.xml: HTTP {e.code})"
    return " ".join(vs[-6:]) or "none"


def main() -> int:
    lines = sys.argv[1:] or ["2.12", "2.13"]
    src = subprocess.run([os.path.join(ROOT, "deploy", "shared", "upstream.sh"), "openwhisk"], check=True, capture_output=True, text=True).stdout.strip()
    for line in lines:
        if line not in SCALA:
            print(f"openwhisk-deps: {line}: a Scala line of settings.gradle (2.12 or 2.13)", file=sys.stderr)
            return 2
        served = refused = 0
        for g, a, v in deps(src, line):
            code = status(g, a, v)
            extra = "" if code == 200 else "\tlisted: " + served_versions(g, a)
            print(f"{line}\t{g}\t{a}\t{v}\t{code}{extra}")
            served, refused = served + (code == 200), refused + (code != 200)
        print(f"# Scala {line}: {served} served, {refused} refused", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
