//go:build tools

// The main packages build.sh builds from modules (cmd/capi-kwok is built from this module): listed
// so that `go mod tidy` keeps what they import.
package tools

import (
	_ "sigs.k8s.io/cluster-api/core"
)
