//go:build tools

// The main package build.sh builds from Helm's module: listed so that `go mod tidy` keeps what it
// imports in this module's go.mod and go.sum. The build tag keeps this file out of every build.
package tools

import (
	_ "helm.sh/helm/v4/cmd/helm"
)
