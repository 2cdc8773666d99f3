#!/usr/bin/env bash
# deploy/cgroup2/guest.sh [--full|--node]: faasbench's cgroup v2 code on a real cgroup v2 kernel. This machine (and CI)
# boots cgroup v1; most users' hosts are cgroup v2 only. So Debian's own kernel (linux-image-amd64, taken
# out of its package, never installed) boots under qemu's software emulation (KVM hangs in this nested
# setup) with cgroup_no_v1=all, on an initramfs that is a Debian root file system made by mmdebstrap
# (python3, iproute2) plus this checkout's test binaries. In the guest: the cgroup package's tests (root
# and rootless in a delegated subtree) and the local platform's limit and OOM tests. The guest prints its
# phase times and each test binary's exit code; the run is capped (FB_V2GUEST_TIMEOUT, 300 s).
# --full adds the local platform's CPU autoscaling test. --node (make test-real) also starts the real node
# in the guest (deploy/cgroup2/node-smoke.sh: containerd, runc and the kubelet on cgroup v2, a
# faasbench run on it, the host checked after node-down): the guest then has the node's Debian packages,
# 6 GiB, a copy of the checkout, and ${FAASBENCH_CACHE} and the kernel's modules shared read-only over
# 9p, and the quickstart runs there too (deploy/cgroup2/quickstart.sh: Go shared from the host, MariaDB and
# Node.js from Debian in the guest); capped at 2400 s.
# Everything built is cached in ${FAASBENCH_CACHE:-/var/cache/faasbench}/v2guest. The guest has no
# network device: its only traffic is on its own loopback.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
mode=${1:-}
case $mode in ""|--full|--node) ;; *) echo "usage: deploy/cgroup2/guest.sh [--full|--node]" >&2; exit 2 ;; esac
cap=${FB_V2GUEST_TIMEOUT:-300} mem=2048
[ "$mode" = --node ] && cap=${FB_V2GUEST_TIMEOUT:-2400} mem=6144
FB_CACHE=${FAASBENCH_CACHE:-/var/cache/faasbench}
cache=$FB_CACHE/v2guest
mkdir -p "$cache"
t0=$(date +%s)
phase() { echo "v2-guest: $1 ($(( $(date +%s) - t0 )) s)"; }

need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
command -v cpio >/dev/null || need+=(cpio)
if [ ${#need[@]} -gt 0 ]; then
  echo "v2-guest: installing ${need[*]}"
  deploy/shared/apt-install.sh "${need[@]}"
fi

# The kernel: the package linux-image-amd64 points to, unpacked here.
kpkg() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}'; }
kpkg=$(kpkg)
if [ -z "$kpkg" ]; then # package lists never fetched (a fresh machine): once, under faasbench's apt lock
  ( exec 9> /var/lock/faasbench-apt.lock; flock -w 900 9 && apt-get -o DPkg::Lock::Timeout=300 update -qq )
  kpkg=$(kpkg)
fi
[ -n "$kpkg" ] || { echo "v2-guest: apt knows no linux-image-amd64 (apt-get update?)" >&2; exit 1; }
# The package is downloaded at most once per run (the kernel and, for --node, its modules come from it).
dl=$(mktemp -d -p "$cache"); work=$(mktemp -d); trap 'rm -rf "$dl" "$work"' EXIT
kdeb() {
  if ! ls "$dl"/*.deb >/dev/null 2>&1; then
    phase "downloading $kpkg" >&2
    (cd "$dl" && apt-get download -qq "$kpkg" 2>/dev/null) || { echo "v2-guest: apt-get download $kpkg failed" >&2; exit 1; }
  fi
  ls "$dl"/*.deb
}
kernel=$cache/$kpkg.vmlinuz
if [ ! -s "$kernel" ]; then
  deb=$(kdeb) || exit 1
  dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './boot/vmlinuz-*' > "$kernel.tmp"
  mv "$kernel.tmp" "$kernel"
fi

# The root file system, as an uncompressed cpio archive (nothing to inflate under emulation).
. /etc/os-release
pkgs=python3,iproute2
[ "$mode" = --node ] && pkgs=$pkgs,containerd,runc,containernetworking-plugins,iptables,conntrack,curl,openssl,kmod,procps,bc,mmdebstrap,util-linux,mariadb-server,mariadb-client,nodejs
base=$cache/rootfs-${VERSION_CODENAME:-bookworm}-$(echo "$pkgs" | sha256sum | cut -c1-12).cpio
if [ ! -s "$base" ]; then
  phase "mmdebstrap ${VERSION_CODENAME:-bookworm} with $pkgs"
  sources=/etc/apt/sources.list.d/debian.sources; [ -s "$sources" ] || sources=/etc/apt/sources.list
  tree=$cache/rootfs.tmp; rm -rf "$tree"
  mmdebstrap --variant=minbase --mode=root --quiet --include="$pkgs" "${VERSION_CODENAME:-bookworm}" "$tree" "$sources"
  rm -rf "$tree"/usr/share/{doc,man,locale,info} "$tree"/var/cache/apt/* "$tree"/var/lib/apt/lists/*
  (cd "$tree" && find . -mindepth 1 | cpio -o -H newc --quiet) > "$base.tmp"
  mv "$base.tmp" "$base"; rm -rf "$tree"
fi

# This checkout's part: the test binaries (no -race: it needs cgo; the host runs -race), the workloads
# the local tests deploy, and the guest's init.
phase "test binaries"
mkdir -p "$work/fb/internal/cgroup" "$work/fb/platform/local"
CGO_ENABLED=0 $GO test -c -o "$work/fb/internal/cgroup/cgroup.test" ./internal/cgroup
CGO_ENABLED=0 $GO test -c -o "$work/fb/platform/local/local.test" ./platform/local
cp -r workloads "$work/fb/workloads"
rm -rf "$work/fb/workloads/node_modules"
install -m 0755 deploy/cgroup2/init "$work/init"
[ "$mode" = --full ] && touch "$work/fb/full"
share=()
if [ "$mode" = --node ]; then
  touch "$work/fb/node"
  # The checkout as git has it, and the release binary; the hello images from the cache (the guest
  # has no network to build them).
  CGO_ENABLED=0 $GO build -o bin/faasbench ./cmd/faasbench # this checkout's, never an older build
  mkdir -p "$work/fb/src/bin"
  git ls-files -z | xargs -0 cp --parents -t "$work/fb/src"
  cp bin/faasbench "$work/fb/src/bin/"
  # The quickstart's query function needs mysql2 (npm, installed by scripts/setup.sh on the host).
  [ -d workloads/node_modules/mysql2 ] || { echo "v2-guest: workloads/node_modules/mysql2 is missing (scripts/setup.sh)" >&2; exit 1; }
  cp -r workloads/node_modules "$work/fb/src/workloads/"
  # The Go standard library compiled here for the guest (same toolchain, shared at the same path, cgo off
  # as in the guest): under emulation the guest alone took more than the platform's 5 minutes to
  # compile it for hello in Go. Only hello's own packages are left for the guest to build.
  GOCACHE=$cache/gocache CGO_ENABLED=0 GOFLAGS=-mod=mod GOPROXY=off $GO build -o /dev/null ./workloads/hello/go
  cp -r "$cache/gocache" "$work/fb/gocache"
  deploy/node/images.sh --build-only hello:go hello:python
  deploy/shared/registry-build.sh >/dev/null # the node's registry, built here (the guest has no network)
  # The kernel's modules (netfilter, bridge, veth, overlay: loaded on demand by the node), unpacked once
  # and shared; the 9p ones go into the initramfs, in the order modprobe gives.
  kver=${kpkg#linux-image-}
  mods=$cache/modules-$kver
  if [ ! -s "$mods/lib/modules/$kver/modules.dep" ]; then
    phase "unpacking $kpkg's modules"
    deb=$(kdeb) || exit 1
    rm -rf "$mods.tmp"; dpkg-deb -x "$deb" "$mods.tmp"
    depmod -b "$mods.tmp" "$kver"
    rm -rf "$mods"; mv "$mods.tmp" "$mods"
  fi
  mkdir -p "$work/fb/ko"
  for m in virtio_pci 9pnet_virtio 9p; do modprobe -d "$mods" -S "$kver" --show-depends "$m"; done | awk '$1 == "insmod" {print $2}' | awk '!seen[$0]++' |
    while read -r ko; do cp "$ko" "$work/fb/ko/"; basename "$ko" >> "$work/fb/ko/order"; done
  share=(-virtfs "local,path=$FB_CACHE,mount_tag=fbcache,security_model=none,readonly=on"
         -virtfs "local,path=$mods/lib/modules,mount_tag=modules,security_model=none,readonly=on"
         -virtfs "local,path=$($GO env GOROOT),mount_tag=goroot,security_model=none,readonly=on"
         -virtfs "local,path=$($GO env GOMODCACHE),mount_tag=gomodcache,security_model=none,readonly=on")
  echo "$($GO env GOMODCACHE)" > "$work/fb/gomodcache"
fi
(cd "$work" && find init fb | cpio -o -H newc --quiet) > "$work/run.cpio"
cat "$base" "$work/run.cpio" > "$work/initrd"

phase "booting $kpkg (cgroup_no_v1=all, 2 vCPUs under TCG, $mem MiB)"
log=$cache/console.log  # the last run's, kept to read
# boot SECONDS: one guest, its console in $log. A guest whose console stays silent for $silence s is
# stopped (exit 125): once in six boots here the guest froze in its first CPU-quota test (no output, and
# the test binary's own timeout never fired: the guest kernel, not a test, had stopped).
silence=${FB_V2GUEST_SILENCE:-90}; [ "$mode" = --node ] && silence=${FB_V2GUEST_SILENCE:-0}
boot() {
  timeout --kill-after=10 "$1" qemu-system-x86_64 -accel tcg -m "$mem" -smp 2 -nographic -no-reboot \
    -nic none "${share[@]}" -kernel "$kernel" -initrd "$work/initrd" \
    -append "console=ttyS0 panic=-1 quiet cgroup_no_v1=all rdinit=/init" > "$log" 2>&1 < /dev/null &
  local q=$! size=-1 quiet=0
  while kill -0 "$q" 2>/dev/null; do
    sleep 1
    local now; now=$(stat -c %s "$log" 2>/dev/null || echo 0)
    if [ "$now" = "$size" ]; then quiet=$((quiet + 1)); else quiet=0 size=$now; fi
    if [ "$silence" -gt 0 ] && [ "$quiet" -ge "$silence" ]; then
      pkill -KILL -P "$q" 2>/dev/null; kill -KILL "$q" 2>/dev/null; wait "$q" 2>/dev/null; return 125
    fi
  done
  wait "$q"
}
set +e
b0=$(date +%s)
boot "$cap"; qrc=$?
if [ $qrc = 125 ]; then
  cp "$log" "$cache/console-silent.log"
  left=$(( cap - ($(date +%s) - b0) ))
  echo "v2-guest: the guest's console was silent for ${silence} s (a frozen guest; its console: $cache/console-silent.log, last lines below); booting once more with the ${left} s left of ${cap} s" >&2
  tr -d '\r' < "$log" | tail -5 >&2
  [ "$left" -gt 60 ] && { boot "$left"; qrc=$?; }
fi
set -e
# The guest's own lines (the kernel's console adds carriage returns).
clean() { tr -d '\r' < "$log" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g'; }
clean | grep -av '^\[ *[0-9.]*\]' | sed -n '/FBGUEST kernel/,$p' | grep -av 'FBGUEST ' || true
clean | grep -ao 'FBGUEST .*' | sed 's/^FBGUEST /v2-guest: /' || true
phase "guest ended (qemu exit $qrc)"
if [ $qrc = 125 ]; then
  echo "v2-guest: the guest's console was silent for ${silence} s on both boots (FB_V2GUEST_SILENCE); its console:" >&2
  clean | tail -40 >&2; exit 1
fi
if [ $qrc = 124 ] || [ $qrc = 137 ]; then
  echo "v2-guest: the guest did not end within ${cap} s (FB_V2GUEST_TIMEOUT); its console:" >&2
  clean | tail -40 >&2; exit 1
fi
clean | grep -aq '^FBGUEST done' || { echo "v2-guest: the guest stopped before its end; its console:" >&2; clean | tail -40 >&2; exit 1; }
clean | deploy/cgroup2/failed-steps.sh
