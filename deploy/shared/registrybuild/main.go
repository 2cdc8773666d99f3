//go:build ignore

// registry is the CNCF Distribution registry (distribution/distribution v3, from the Go module proxy)
// with only the filesystem storage driver and no auth plugin: the test node's registry listens on the
// loopback of the node's network namespace (deploy/node/up.sh), where only the node's containerd and
// faasbench's scripts entered into that namespace reach it. Leaving out the cloud storage drivers (their
// SDKs are most of upstream's build) keeps the build short. deploy/kube/build.sh builds it in a scratch
// module outside the repository.
package main

import (
	"os"

	"github.com/distribution/distribution/v3/registry"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
)

func main() {
	if err := registry.RootCmd.Execute(); err != nil {
		os.Exit(1)
	}
}
